import type { SheetModel, SheetVendor } from '../price-rows.js';

/**
 * USD per Kling unit: the smallest API resource package's price divided by its units. Kling sells
 * prepaid packages, so this is an estimate for budgets, not a list price: set `prices` from the
 * package you bought.
 */
const KLING_UNIT_USD = 0.14;

/** Kling bills units per 5-second clip by mode (the billing details read `mode` as the resolution). */
const klingUnits = (std: number, pro: number, basis?: string): SheetModel => ({
  kind: 'video',
  price: { per_video_second_by_resolution: { std: (std * KLING_UNIT_USD) / 5, pro: (pro * KLING_UNIT_USD) / 5, default: (pro * KLING_UNIT_USD) / 5 } },
  basis: basis ? `${basis}; ${KLING_UNIT_USD} USD per unit (estimate)` : `units per 5 s at ${KLING_UNIT_USD} USD per unit (estimate)`,
});

/**
 * Its rows of the built-in price sheet (issue 34): units per 5 s times the smallest package's unit
 * price, so budgets hold on /videoalt (they used to cost nothing).
 */
export const klingPrices: SheetVendor = {
  vendor: 'kling',
  source: 'https://klingai.com/global/dev/pricing (units per task and package prices)',
  checked: '2026-11-24',
  models: {
    'kling-v1': klingUnits(1, 3.5),
    'kling-v1-5': klingUnits(2, 3.5),
    'kling-v1-6': klingUnits(2, 3.5),
    'kling-v2-master': klingUnits(10, 10),
    'kling-v2-1': klingUnits(2, 3.5),
    'kling-v2-1-master': klingUnits(10, 10),
    'kling-v2-5-turbo': klingUnits(1.5, 2.5),
    'kling-v2-6': klingUnits(1.5, 2.5, 'no unit count published when read: priced like kling-v2-5-turbo'),
    'kling-v3': klingUnits(1.5, 2.5, 'no unit count published when read: priced like kling-v2-5-turbo'),
  },
};
