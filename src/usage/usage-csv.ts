import type { Totals } from './usage-report.js';

/** The CSV columns: the group, then the totals' numeric fields in the JSON report's names. */
const COLUMNS = ['requests', 'prompt_tokens', 'completion_tokens', 'reasoning_tokens', 'total_tokens', 'images', 'video_seconds', 'cost_usd'] as const;

/**
 * Quotes a cell when it needs it, and defuses cells a spreadsheet would run as a formula
 * (a leading = + - @): group names come from model ids, channels and user ids.
 */
export function cell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * The usage report as CSV: one row per group, or a single `all` row when ungrouped. The figures
 * are the JSON report's, so the two never disagree.
 */
export function usageReportToCsv(report: { totals: Totals; groups: Array<{ group: string } & Totals> }, grouped: boolean): string {
  const rows = grouped ? report.groups : [{ group: 'all', ...report.totals }];
  const lines = [['group', ...COLUMNS].join(',')];
  for (const row of rows) lines.push([cell(row.group), ...COLUMNS.map((c) => String(row[c]))].join(','));
  return lines.join('\r\n') + '\r\n';
}
