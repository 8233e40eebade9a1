import type { Db } from '../db/connect.js';

/** How long a vendor keeps a stored response (OpenAI: 30 days); older rows are pruned. */
const KEEP_MS = 30 * 24 * 3_600_000;
/** Prune once per this many responses remembered: one cheap indexed delete now and then. */
const PRUNE_EVERY = 1_000;

/**
 * Which channel stored each Responses answer (issue 33): `previous_response_id` names a response
 * only the account that made it knows, so its follow-up must go there. In the database, so every
 * instance finds what any instance remembered.
 */
export class ResponseHomes {
  private remembered = 0;

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  async remember(responseId: string, channel: string): Promise<void> {
    const at = this.now();
    await this.db
      .insertInto('response_channels')
      .values({ response_id: responseId, channel, created_at: at })
      .onConflict((conflict) => conflict.column('response_id').doUpdateSet({ channel, created_at: at }))
      .execute();
    if (++this.remembered % PRUNE_EVERY === 0) {
      void this.db
        .deleteFrom('response_channels')
        .where('created_at', '<', at - KEEP_MS)
        .execute()
        .catch(() => undefined);
    }
  }

  async channelOf(responseId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('response_channels').select('channel').where('response_id', '=', responseId).executeTakeFirst();
    return row?.channel;
  }
}
