import { describe, expect, it } from 'vitest';
import { usageReportToCsv } from '../../src/usage/usage-csv.js';

const totals = { requests: 1, prompt_tokens: 2, completion_tokens: 3, reasoning_tokens: 0, cached_input_tokens: 0, cache_write_5m_tokens: 0, cache_write_1h_tokens: 0, image_input_tokens: 0, image_output_tokens: 0, total_tokens: 5, images: 0, video_seconds: 0, cost_usd: 0.5, cache_hits: 0, saved_cost_usd: 0, by_outcome: { success: 1 } };

describe('usage CSV (issue 12)', () => {
  it('quotes cells with commas or quotes, and defuses cells a spreadsheet would run as formulas', () => {
    const csv = usageReportToCsv({ totals, groups: [{ group: 'a,"b"', ...totals }, { group: '=HYPERLINK("x")', ...totals }, { group: '-1', ...totals }] }, true);
    const lines = csv.split('\r\n');
    expect(lines[1]).toBe('"a,""b""",1,2,0,0,0,0,3,0,0,5,0,0,0.5,0,0');
    expect(lines[2]!.startsWith(`"'=HYPERLINK(""x"")"`)).toBe(true);
    expect(lines[3]!.startsWith("'-1,")).toBe(true);
    expect(csv.endsWith('\r\n')).toBe(true);
  });
});
