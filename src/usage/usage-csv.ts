import type { Totals } from './usage-report.js';

/**
 * The CSV columns: the group, then the totals' numeric fields in the JSON report's names; every
 * billed token part (issue 35), in the request CSV's order, so a row's cost can be recomputed from
 * its own columns and the price sheet; then the response cache's hits and what they saved (issue 32).
 */
const COLUMNS = [
  'requests', 'prompt_tokens', 'cached_input_tokens', 'cache_write_5m_tokens', 'cache_write_1h_tokens', 'image_input_tokens',
  'completion_tokens', 'reasoning_tokens', 'image_output_tokens', 'total_tokens', 'images', 'video_seconds', 'cost_usd',
  'cache_hits', 'saved_cost_usd',
] as const;

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
export function usageReportToCsv(
  report: { totals: Totals; groups: Array<{ group: string; model?: string } & Totals> },
  grouped: boolean,
  /** Key and user groups: the name the console shows (the key's name, the person's email), in a `name` column after the id. */
  names?: ReadonlyMap<string, string>,
): string {
  const rows: Array<{ group: string; model?: string } & Totals> = grouped ? report.groups : [{ group: 'all', ...report.totals }];
  const withModel = rows.some((row) => row.model !== undefined);
  const lines = [['group', ...(names ? ['name'] : []), ...(withModel ? ['model'] : []), ...COLUMNS].join(',')];
  for (const row of rows) {
    const named = names ? [cell(names.get(row.group) ?? row.group)] : [];
    const model = withModel ? [cell(row.model ?? '')] : [];
    lines.push([cell(row.group), ...named, ...model, ...COLUMNS.map((c) => String(row[c]))].join(','));
  }
  return lines.join('\r\n') + '\r\n';
}
