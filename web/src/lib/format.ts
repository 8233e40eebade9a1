/** Display formats: one place for money, counts and times (API instants are UTC ISO-8601). */
const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
// The ledger holds costs to the nano-dollar (issue 35): a small amount shows all nine places it has.
const usdSmall = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 9 });
const count = new Intl.NumberFormat('en-US');

export const formatUsd = (value: number | null | undefined): string => {
  if (value === null || value === undefined) return '—';
  return value !== 0 && Math.abs(value) < 1 ? usdSmall.format(value) : usd.format(value);
};

export const formatCount = (value: number | null | undefined): string => (value === null || value === undefined ? '—' : count.format(value));

export const formatMs = (value: number | null | undefined): string => {
  if (value === null || value === undefined) return '—';
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value)} ms`;
};

export const formatPercent = (ratio: number | null | undefined): string => (ratio === null || ratio === undefined ? '—' : `${(ratio * 100).toFixed(1)} %`);

/** Local date and time; the UTC instant goes in a title. */
export const formatTime = (iso: string | null | undefined): string => {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
};

/** Local date and time to the second (the request log: requests a second apart must read apart). */
export const formatSeconds = (iso: string | null | undefined): string => {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
};

/** "UTC+02:00": the offset the page shows local times in. */
export function localZoneLabel(at = new Date()): string {
  const minutes = -at.getTimezoneOffset();
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** A value for <input type="datetime-local"> (local time) from an ISO instant, and back. */
export function isoToLocalInput(iso: string | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

export function localInputToIso(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

export const listOrAll = (values: readonly string[] | null | undefined, all = 'All'): string => (values === null || values === undefined ? all : values.length === 0 ? 'None' : values.join(', '));

/**
 * A user's budget, said one way everywhere (issue 35): it covers all their keys together (each
 * key's budget, plus what revoked keys spent, must fit in it), never "per key".
 */
export const userBudgetWords = (usd: number, whose: 'your' | 'their'): string => `${formatUsd(usd)} for all ${whose} keys together`;
