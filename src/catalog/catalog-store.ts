import { randomUUID } from 'node:crypto';
import type { Db } from '../db/connect.js';
import type { ModelConfig, PriceConfig } from '../config/schema.js';
import type { OPERATOR_FAMILIES, OPERATOR_KINDS } from '../contracts/endpoint-family.js';

/** The settings row every change below moves on; instances compare it to know when to re-read. */
const REVISION_SETTING = 'catalog_revision';

/**
 * The operator's runtime catalog in the database (issue 21): models (0014), prices (0015) and
 * channels, and one revision that each write changes. Instances read the revision every few
 * seconds (one indexed row) and the tables only when it moved.
 */
export class CatalogStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  async revision(): Promise<string | null> {
    const row = await this.db.selectFrom('settings').select('value').where('name', '=', REVISION_SETTING).executeTakeFirst();
    return row?.value ?? null;
  }

  /** A new revision (random, so two instances writing at once never agree by accident). */
  async bump(): Promise<void> {
    const value = `${this.now()}-${randomUUID()}`;
    await this.db
      .insertInto('settings')
      .values({ name: REVISION_SETTING, value })
      .onConflict((conflict) => conflict.column('name').doUpdateSet({ value }))
      .execute();
  }

  async models(): Promise<ModelConfig[]> {
    const rows = await this.db.selectFrom('catalog_models').selectAll().orderBy('id').execute();
    return rows.map((row) => ({
      id: row.id,
      kind: row.kind as (typeof OPERATOR_KINDS)[number],
      families: JSON.parse(row.families) as Array<(typeof OPERATOR_FAMILIES)[number]>,
      ...(row.owned_by ? { owned_by: row.owned_by } : {}),
    }));
  }

  async model(id: string): Promise<ModelConfig | undefined> {
    return (await this.models()).find((model) => model.id === id);
  }

  async putModel(model: ModelConfig & { families: NonNullable<ModelConfig['families']> }): Promise<void> {
    const at = this.now();
    const row = { kind: model.kind, families: JSON.stringify(model.families), owned_by: model.owned_by ?? null, updated_at: at };
    await this.db
      .insertInto('catalog_models')
      .values({ id: model.id, ...row, created_at: at })
      .onConflict((conflict) => conflict.column('id').doUpdateSet(row))
      .execute();
    await this.bump();
  }

  /** Whether there was a row to delete. Its price goes with it. */
  async deleteModel(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('catalog_models').where('id', '=', id).executeTakeFirst();
    await this.db.deleteFrom('model_prices').where('model', '=', id).execute();
    await this.bump();
    return Number(result.numDeletedRows) > 0;
  }

  async prices(): Promise<Map<string, PriceConfig>> {
    const rows = await this.db.selectFrom('model_prices').selectAll().orderBy('model').execute();
    return new Map(rows.map((row) => [row.model, JSON.parse(row.price) as PriceConfig]));
  }

  /** null removes the model's runtime price (the file's or the built-in one applies again). */
  async setPrice(model: string, price: PriceConfig | null): Promise<void> {
    if (price === null) {
      await this.db.deleteFrom('model_prices').where('model', '=', model).execute();
    } else {
      const row = { price: JSON.stringify(price), updated_at: this.now() };
      await this.db
        .insertInto('model_prices')
        .values({ model, ...row })
        .onConflict((conflict) => conflict.column('model').doUpdateSet(row))
        .execute();
    }
    await this.bump();
  }
}
