import type { AutoDisabledReason } from './channel-state-store.js';

export interface AuthFailureGuardOptions {
  /** The channel's threshold of consecutive 401/403 answers; 0 or undefined: never disable it. */
  thresholdOf: (channel: string) => number | undefined;
  /** Disables the channel (shared store: every instance stops routing to it). */
  disable: (channel: string, reason: AutoDisabledReason) => Promise<void>;
  onError: (channel: string, error: unknown) => void;
  now?: () => number;
}

/**
 * Auto-disable after repeated authentication failures (issue 35, new-api's habit): a vendor that
 * answers 401/403 to every request has revoked or never had our credential, and each request
 * routed there costs a round trip before falling back. The count is this instance's consecutive
 * refusals (any other outcome on the channel starts it again); reaching the channel's threshold
 * disables it in the shared settings, with the vendor's redacted text as the reason. Off unless a
 * threshold is configured.
 */
export class AuthFailureGuard {
  private readonly counts = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly options: AuthFailureGuardOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Any outcome that is not an authentication refusal. */
  answered(channel: string): void {
    this.counts.delete(channel);
  }

  failed(channel: string, status: number | undefined, message: string, vendorMessage: string | undefined): void {
    if (status !== 401 && status !== 403) return this.answered(channel);
    const threshold = this.options.thresholdOf(channel);
    if (!threshold) return;
    const failures = (this.counts.get(channel) ?? 0) + 1;
    if (failures < threshold) {
      this.counts.set(channel, failures);
      return;
    }
    this.counts.delete(channel);
    const reason: AutoDisabledReason = { at: new Date(this.now()).toISOString(), failures, status, message, vendor_message: vendorMessage ?? null };
    this.options.disable(channel, reason).catch((error: unknown) => this.options.onError(channel, error));
  }
}
