import type { EmbeddingTraits, ModelKind } from '../contracts/endpoint-family.js';
import type { PriceConfig } from '../contracts/price.js';

/**
 * The shape of a vendor's rows of the built-in price sheet (issue 21), each vendor's in its own
 * folder (prices.ts): list prices in USD keyed by the vendor's own model name, standard (not
 * batch, not priority) tier, with the public page and the day it was read. Data only; the rules
 * that read it are in usage/cost-lines.ts and catalog/price-book.ts, and catalog/price-sheet.ts
 * gathers the rows from the registry.
 *
 * A model whose vendor publishes no price in USD is priced like a named sibling (`basis`), so a
 * fresh gateway never shows $0; set your own price for it.
 */
export interface SheetModel {
  readonly kind: Exclude<ModelKind, 'asset'>;
  readonly price: PriceConfig;
  /** Where the figure comes from when it is not the vendor page's own row for this model. */
  readonly basis?: string;
  /** Embedding models: vector length, input limit, whether `dimensions` may shorten it. */
  readonly embedding?: EmbeddingTraits;
}

export interface SheetVendor {
  /** The neutral vendor word (`owned_by` of these models) and the provider it belongs to. */
  readonly vendor: string;
  readonly source: string;
  /** The day the page was read (YYYY-MM-DD). */
  readonly checked: string;
  readonly models: Readonly<Record<string, SheetModel>>;
}

/** A model billed by tokens: input, cache reads and output (USD per million), plus any other dimension. */
export const tokenPriced = (kind: SheetModel['kind'], prompt: number, cached: number, completion: number, extra: PriceConfig = {}, basis?: string): SheetModel => ({
  kind,
  price: { prompt_per_1m: prompt, cached_prompt_per_1m: cached, completion_per_1m: completion, ...extra },
  ...(basis ? { basis } : {}),
});

/** An embedding model: input tokens only. */
export const embeddingPriced = (prompt: number, traits: EmbeddingTraits, basis?: string): SheetModel => ({
  kind: 'embedding',
  price: { prompt_per_1m: prompt },
  embedding: traits,
  ...(basis ? { basis } : {}),
});
