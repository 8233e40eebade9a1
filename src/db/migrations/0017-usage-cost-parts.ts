import type { Kysely, Migration } from 'kysely';
import { columnTypesFor } from '../dialect.js';

/**
 * Every billed dimension on the ledger (issue 21): the input tokens read from or written to a
 * prompt cache and the image tokens (all parts of prompt/completion tokens, as vendors report
 * them), and the price the request was billed at (JSON; per image and per second flattened to the
 * unit that applied), so the request log shows the bill line by line at the price of the day,
 * however prices change later. Existing rows read 0 and no price.
 */
export const usageCostParts: Migration = {
  async up(db: Kysely<unknown>) {
    const { integer } = columnTypesFor(db);
    for (const column of ['cached_tokens', 'cache_write_5m_tokens', 'cache_write_1h_tokens', 'image_input_tokens', 'image_output_tokens']) {
      await db.schema.alterTable('usage_events').addColumn(column, integer, (c) => c.notNull().defaultTo(0)).execute();
    }
    await db.schema.alterTable('usage_events').addColumn('billed_price', 'text').execute();
  },
};
