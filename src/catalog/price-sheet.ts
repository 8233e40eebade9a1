import { PROVIDERS } from '../providers/registry.js';
import type { SheetVendor } from '../providers/price-rows.js';

export type { SheetModel, SheetVendor } from '../providers/price-rows.js';

/**
 * The built-in price sheet (issue 21): each vendor's rows (providers/<vendor>/prices.ts), in the
 * registry's order. An operator's `prices` (file, admin API, console) replace a model's entry, a
 * channel's `prices` win over both. A vendor that sells no USD price (prepaid packages, for one)
 * has no rows: its models cost nothing until `prices` names a rate.
 */
export const PRICE_SHEET: readonly SheetVendor[] = PROVIDERS.flatMap((provider) => (provider.prices ? [provider.prices].flat() : []));
