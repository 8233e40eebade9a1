import type { Db } from '../db/connect.js';

/** A channel test's result as the admin API answers it and the console shows it (issue 35). */
export interface ChannelTestRecord {
  at: string;
  ok: boolean;
  model: string;
  status: number | null;
  latency_ms: number;
  reply: string | null;
  error: string | null;
  vendor_status: number | null;
  vendor_message: string | null;
}

/** Why the gateway disabled a channel on its own (issue 35): the last refusal of the run that did it. */
export interface AutoDisabledReason {
  at: string;
  failures: number;
  status: number | null;
  message: string;
  /** The vendor's own text, already redacted of the channel's credentials. */
  vendor_message: string | null;
}

export interface ChannelState {
  lastTest: ChannelTestRecord | null;
  autoDisabled: AutoDisabledReason | null;
}

const parsed = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

/**
 * The `channel_state` table (0026): one row per channel the gateway noted something about, shared
 * by every instance (on PostgreSQL) so a test's result and an auto-disable's reason read the same
 * wherever the console is served from.
 */
export class ChannelStateStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  async readAll(): Promise<Map<string, ChannelState>> {
    const rows = await this.db.selectFrom('channel_state').selectAll().execute();
    return new Map(rows.map((row) => [row.name, { lastTest: parsed<ChannelTestRecord>(row.last_test), autoDisabled: parsed<AutoDisabledReason>(row.auto_disabled) }]));
  }

  saveTest(name: string, record: ChannelTestRecord): Promise<void> {
    return this.upsert(name, { last_test: JSON.stringify(record) });
  }

  saveAutoDisabled(name: string, reason: AutoDisabledReason | null): Promise<void> {
    return this.upsert(name, { auto_disabled: reason === null ? null : JSON.stringify(reason) });
  }

  private async upsert(name: string, column: { last_test?: string | null; auto_disabled?: string | null }): Promise<void> {
    const row = { ...column, updated_at: this.now() };
    await this.db
      .insertInto('channel_state')
      .values({ name, last_test: null, auto_disabled: null, ...row })
      .onConflict((conflict) => conflict.column('name').doUpdateSet(row))
      .execute();
  }
}
