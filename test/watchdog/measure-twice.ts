import { expect } from 'vitest';

/** One watchdog figure: whether it is within its bound, and the figures as a line to print. */
export interface Measurement {
  within: boolean;
  figures: string;
}

/**
 * The watchdog's one rule for timing (issue 45): a bound is a ratio against a calibration taken
 * in the same run, and other work on a shared machine can land on one measurement of a pair, so a
 * figure over its bound is measured once more, never more; both figures are printed, and the
 * second decides. A real regression (a loop held for the whole request) is over in both.
 */
export async function measureTwice(name: string, measure: () => Promise<Measurement>): Promise<void> {
  const first = await measure();
  console.log(`[watchdog] ${name}: ${first.figures}${first.within ? '' : ' (over the bound: measured again)'}`);
  if (first.within) return;
  const second = await measure();
  console.log(`[watchdog] ${name}, measured again: ${second.figures}`);
  expect(second.within, `${name}: over the bound twice: ${first.figures}; then ${second.figures}`).toBe(true);
}
