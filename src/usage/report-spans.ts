import { PERIOD_MS } from '../db/usage-rollups.js';

/** A part of a report's range and where its figures come from. Bounds are epoch ms; undefined is open. */
export interface Span {
  source: 'events' | 'hour' | 'day';
  from: number | undefined;
  to: number | undefined;
}

const HOUR = PERIOD_MS.hour;
const DAY = PERIOD_MS.day;
const floorTo = (t: number, unit: number) => t - (((t % unit) + unit) % unit);
const ceilTo = (t: number, unit: number) => floorTo(t + unit - 1, unit);

/**
 * Splits [from, to) into the fewest rows to read: the parts of an hour at either end from the
 * events, whole hours up to the first and from the last whole day from the hourly rollups, whole
 * days from the daily ones (only hours when the report is by hour). An end inside an hour older
 * than `rawFrom` (events there may be gone: retention) is moved to the start of its hour, so the
 * hour counts in full when it begins the range and not at all when it ends it.
 */
export function reportSpans(from: number | undefined, to: number | undefined, byHour: boolean, rawFrom: number): Span[] {
  let lo = from;
  let hi = to;
  if (lo !== undefined && lo < rawFrom) lo = floorTo(lo, HOUR);
  if (hi !== undefined && hi < rawFrom) hi = floorTo(hi, HOUR);
  if (lo !== undefined && hi !== undefined && lo >= hi) return [];
  const spans: Span[] = [];
  const tail: Span[] = [];
  if (lo !== undefined && lo % HOUR !== 0) {
    const end = hi === undefined ? ceilTo(lo, HOUR) : Math.min(ceilTo(lo, HOUR), hi);
    spans.push({ source: 'events', from: lo, to: end });
    lo = end;
  }
  if (hi !== undefined && hi % HOUR !== 0 && (lo === undefined || hi > lo)) {
    const start = lo === undefined ? floorTo(hi, HOUR) : Math.max(floorTo(hi, HOUR), lo);
    tail.push({ source: 'events', from: start, to: hi });
    hi = start;
  }
  if (lo === undefined || hi === undefined || lo < hi) {
    if (byHour) spans.push({ source: 'hour', from: lo, to: hi });
    else {
      const dayLo = lo === undefined ? undefined : ceilTo(lo, DAY);
      const dayHi = hi === undefined ? undefined : floorTo(hi, DAY);
      if (dayLo === undefined || dayHi === undefined || dayLo < dayHi) {
        if (lo !== undefined && lo < dayLo!) spans.push({ source: 'hour', from: lo, to: dayLo });
        spans.push({ source: 'day', from: dayLo, to: dayHi });
        if (hi !== undefined && dayHi! < hi) spans.push({ source: 'hour', from: dayHi, to: hi });
      } else spans.push({ source: 'hour', from: lo, to: hi });
    }
  }
  return [...spans, ...tail];
}
