import { Catalog } from '../catalog/catalog.js';
import { checkCatalogReferences } from '../catalog/check-config.js';
import type { FileConfig, PriceConfig } from '../config/schema.js';
import { priceUsage, type BillableUsage } from './cost-lines.js';

export type { BillableUsage };

/** Cost in USD of `usage` at the price a table gives `model`; a model the table leaves out costs 0. */
export function costOf(prices: Readonly<Record<string, PriceConfig>> | undefined, model: string, usage: BillableUsage): number {
  const price = prices?.[model];
  return price ? priceUsage(price, usage).usd : 0;
}

/**
 * Prices and tiers name models exactly; a typo would silently price a model at 0 or leave it
 * unlimited, so unknown ids stop the boot instead (the file's own `models:` count; at start the
 * admin API's count too, see catalog/check-config.ts).
 */
export function checkBillingConfig(file: FileConfig): void {
  checkCatalogReferences(file, new Catalog(file.models));
}
