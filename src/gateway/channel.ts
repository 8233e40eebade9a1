import type { PriceConfig } from '../config/schema.js';
import type { ProviderModule } from '../providers/types.js';
import type { VendorId } from '../providers/registry.js';
import type { ChannelCredentials } from '../contracts/upstream-call.js';
import type { Redactor } from './channel-redactor.js';

/** One upstream account, resolved from configuration (or a built-in simulator). */
export interface Channel {
  readonly name: string;
  readonly vendor: VendorId;
  readonly provider: ProviderModule;
  /** No trailing slash. */
  readonly baseUrl: string;
  readonly credentials: ChannelCredentials;
  /** public model id → upstream model name */
  readonly models: Readonly<Record<string, string>>;
  readonly priority: number;
  readonly weight: number;
  readonly maxRetries: number;
  /** Consecutive vendor 401/403 answers that disable the channel (issue 35); 0 never, undefined: the routing default. */
  readonly autoDisableAfterAuthFailures?: number | undefined;
  readonly timeouts: ChannelTimeouts;
  readonly headers: Readonly<Record<string, string>>;
  readonly isSimulator: boolean;
  /** `off`: translators add no prompt-cache marks of their own (config `prompt_cache`); absent is `auto`. */
  readonly promptCache?: 'auto' | 'off' | undefined;
  /** The channel's `batch` setting (issue 46); absent: its vendor's default for its base URL (native-batch.ts). */
  readonly batch?: 'native' | 'gateway' | undefined;
  /** Embeddings: the channel's own per-call input limit, below its vendor's. */
  readonly maxInputsPerCall?: number | undefined;
  /** This channel's prices by public model id (issue 21): they win over the operator's and the built-in sheet. */
  readonly prices?: Readonly<Record<string, PriceConfig>> | undefined;
  /** Removes this channel's credentials and host from upstream text (issue 34); built with the channel. */
  readonly redact?: Redactor | undefined;
}

export interface ChannelTimeouts {
  connectMs: number;
  firstByteMs: number;
  idleMs: number;
  totalMs: number;
}

export const DEFAULT_TIMEOUTS: ChannelTimeouts = Object.freeze({
  connectMs: 10_000,
  firstByteMs: 120_000,
  idleMs: 120_000,
  totalMs: 600_000,
});
