import type { Db } from '../db/connect.js';
import type { ChannelSettingTable } from '../db/schema.js';
import type { Channel } from './channel.js';
import { routableChannels } from './route-model.js';
import { ChannelStateStore, type AutoDisabledReason, type ChannelState, type ChannelTestRecord } from './channel-state-store.js';

/** What an operator may change on a running channel; null puts the file's value back. */
export interface ChannelPatch {
  enabled?: boolean | null | undefined;
  weight?: number | null | undefined;
  priority?: number | null | undefined;
}

export interface ChannelOverrides {
  enabled: boolean | null;
  weight: number | null;
  priority: number | null;
}

const NONE: ChannelOverrides = Object.freeze({ enabled: null, weight: null, priority: null });
const NO_STATE: ChannelState = Object.freeze({ lastTest: null, autoDisabled: null });
/** How often an instance reads the settings other instances may have changed. */
const REFRESH_MS = 5_000;

export interface ChannelControlOptions {
  /** Channels their definition turns off (`enabled: false` in the file or the admin API's definition). */
  disabledInFile?: ReadonlySet<string>;
  /** Gets the routable channels (enabled ones, settings applied), and every channel, each time they change. */
  onChange: (routable: readonly Channel[], all: readonly Channel[]) => void;
  refreshMs?: number;
  now?: () => number;
  onError?: (error: unknown) => void;
}

/**
 * Runtime control of channels (issue 12): enabled, weight and priority changed by an operator are
 * kept in `channel_settings` and win over the configuration file, which stays the starting
 * point (a null puts the file's value back). Routing reads a plain array that is replaced, never
 * changed in place, when the settings change, so the request path pays nothing for this. Every
 * instance re-reads the table every few seconds: a change made on one reaches all of them.
 */
export class ChannelControl {
  private overrides = new Map<string, ChannelOverrides>();
  private effective: readonly Channel[];
  private seen = '';
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;
  private disabledInFile: ReadonlySet<string>;
  private states = new Map<string, ChannelState>();
  private readonly stateStore: ChannelStateStore;

  constructor(
    private readonly db: Db,
    /** Every configured channel (and default simulator channel), as its definition describes it. */
    private configured: readonly Channel[],
    private readonly options: ChannelControlOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.effective = configured;
    this.disabledInFile = options.disabledInFile ?? new Set();
    this.stateStore = new ChannelStateStore(db, this.now);
  }

  /**
   * New definitions (issue 21: channels added, changed or removed at runtime): the stored settings
   * apply over them as over the file's, and routing gets the new list at once.
   */
  setConfigured(channels: readonly Channel[], disabled: ReadonlySet<string>): void {
    this.configured = channels;
    this.disabledInFile = disabled;
    this.apply();
  }

  /** Every channel with its settings applied, enabled or not (task polling and the console need the disabled ones too). */
  get all(): readonly Channel[] {
    return this.effective;
  }

  /** The enabled channels, the list routing reads (remembering the disabled ones: route-model.ts). */
  get routable(): readonly Channel[] {
    return routableChannels(this.effective, (name) => this.isEnabled(name));
  }

  find(name: string): Channel | undefined {
    return this.effective.find((channel) => channel.name === name);
  }

  /** The channel's settings as the configuration file gives them. */
  fileSettingsOf(name: string): { enabled: boolean; weight: number; priority: number } | undefined {
    const channel = this.configured.find((c) => c.name === name);
    return channel && { enabled: !this.disabledInFile.has(name), weight: channel.weight, priority: channel.priority };
  }

  isEnabled(name: string): boolean {
    return this.overrides.get(name)?.enabled ?? !this.disabledInFile.has(name);
  }

  overridesOf(name: string): ChannelOverrides {
    return this.overrides.get(name) ?? NONE;
  }

  /** What the gateway noted about the channel (issue 35): its last test, why it disabled it. */
  stateOf(name: string): ChannelState {
    return this.states.get(name) ?? NO_STATE;
  }

  /** Keeps a test's result for every instance's console. */
  async recordTest(name: string, record: ChannelTestRecord): Promise<void> {
    await this.stateStore.saveTest(name, record);
    this.states.set(name, { ...this.stateOf(name), lastTest: record });
  }

  /**
   * Disables the channel for a reason of the gateway's own (issue 35). The reason is written
   * first: a crash between the two writes leaves a reason on an enabled channel, which is shown
   * nowhere and cleared by the next re-enable.
   */
  async autoDisable(name: string, reason: AutoDisabledReason): Promise<void> {
    await this.stateStore.saveAutoDisabled(name, reason);
    this.states.set(name, { ...this.stateOf(name), autoDisabled: reason });
    await this.update(name, { enabled: false });
  }

  /** Reads the stored settings; rebuilds the routable list only when they changed. */
  async load(): Promise<void> {
    this.states = await this.stateStore.readAll();
    const rows = await this.db.selectFrom('channel_settings').selectAll().orderBy('name').execute();
    const fingerprint = JSON.stringify(rows.map((row) => [row.name, row.enabled, row.weight, row.priority]));
    if (fingerprint === this.seen) return;
    this.seen = fingerprint;
    this.overrides = new Map(rows.map((row) => [row.name, overridesOf(row)]));
    this.apply();
  }

  private apply(): void {
    this.effective = this.configured.map((channel) => {
      const o = this.overrides.get(channel.name);
      return o && (o.weight !== null || o.priority !== null) ? { ...channel, weight: o.weight ?? channel.weight, priority: o.priority ?? channel.priority } : channel;
    });
    this.options.onChange(this.routable, this.effective);
  }

  /** Stores a change and applies it on this instance at once (others within the refresh interval). */
  async update(name: string, patch: ChannelPatch): Promise<void> {
    const current = this.overridesOf(name);
    const next: ChannelOverrides = {
      enabled: patch.enabled === undefined ? current.enabled : patch.enabled,
      weight: patch.weight === undefined ? current.weight : patch.weight,
      priority: patch.priority === undefined ? current.priority : patch.priority,
    };
    if (next.enabled === null && next.weight === null && next.priority === null) {
      await this.db.deleteFrom('channel_settings').where('name', '=', name).execute();
    } else {
      const row = { enabled: next.enabled === null ? null : Number(next.enabled), weight: next.weight, priority: next.priority, updated_at: this.now() };
      await this.db
        .insertInto('channel_settings')
        .values({ name, ...row })
        .onConflict((conflict) => conflict.column('name').doUpdateSet(row))
        .execute();
    }
    // Enabled again by the operator: the gateway's reason for disabling it no longer holds.
    if (patch.enabled !== undefined && this.stateOf(name).autoDisabled && (next.enabled ?? !this.disabledInFile.has(name))) await this.stateStore.saveAutoDisabled(name, null);
    await this.load();
  }

  start(): void {
    this.timer = setInterval(() => void this.load().catch((error: unknown) => this.options.onError?.(error)), this.options.refreshMs ?? REFRESH_MS);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
  }
}

const overridesOf = (row: ChannelSettingTable): ChannelOverrides => ({
  enabled: row.enabled === null ? null : row.enabled !== 0,
  weight: row.weight,
  priority: row.priority,
});
