import type { Kysely, Migration } from 'kysely';
import { columnTypesFor } from '../dialect.js';

/**
 * Every billed dimension on the ledger (issue 21): the input tokens read from or written to a
 * prompt cache and the image tokens (all parts of prompt/completion tokens, as vendors report
 * them), and the bill line by line as JSON (dimension, quantity, unit price, USD), so the request
 * log shows what each part cost at the price of the day. Existing rows read 0 and no lines.
 */
export const usageCostLines: Migration = {
  async up(db: Kysely<unknown>) {
    const { integer } = columnTypesFor(db);
    for (const column of ['cached_tokens', 'cache_write_5m_tokens', 'cache_write_1h_tokens', 'image_input_tokens', 'image_output_tokens']) {
      await db.schema.alterTable('usage_events').addColumn(column, integer, (c) => c.notNull().defaultTo(0)).execute();
    }
    await db.schema.alterTable('usage_events').addColumn('cost_lines', 'text').execute();
  },
};
