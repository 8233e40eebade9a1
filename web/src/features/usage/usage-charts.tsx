import { useMemo, type ReactNode } from 'react';
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip, type ChartOptions, type Plugin } from 'chart.js';
import { Bar, Line } from 'react-chartjs-2';
import { formatCount, formatUsd } from '../../lib/format';
import type { UsageReport } from '../../lib/types';

Chart.register(BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Tooltip, Legend);

/** Okabe-Ito: told apart with the common colour-vision deficiencies. */
const BLUE = '#0072B2';
const ORANGE = '#E69F00';
const GREEN = '#009E73';

export type Bucket = 'hour' | 'day';

/** Every hour or day from `from` to `to` (UTC, the report's buckets), so quiet periods show as zero, not as a gap. */
export function bucketsBetween(bucket: Bucket, from: string | undefined, to: string | undefined, seen: readonly string[]): string[] {
  const step = bucket === 'hour' ? 3_600_000 : 86_400_000;
  const start = from ? Date.parse(from) : seen.length > 0 ? Date.parse(bucket === 'hour' ? seen[0]! : `${seen[0]}T00:00Z`) : NaN;
  const end = to ? Date.parse(to) - 1 : Date.now();
  if (!Number.isFinite(start) || !Number.isFinite(end) || end < start || (end - start) / step > 1000) return [...seen].sort();
  const label = (ms: number) => (bucket === 'hour' ? new Date(ms).toISOString().slice(0, 13) + ':00Z' : new Date(ms).toISOString().slice(0, 10));
  const all = new Set<string>();
  for (let at = Math.floor(start / step) * step; at <= end; at += step) all.add(label(at));
  for (const s of seen) all.add(s);
  return [...all].sort();
}

/**
 * An axis label: for an hour, the time over the date on a second line (UTC, like the report's
 * buckets), so each label is as narrow as "Nov 27" and the axis fits many more before skipping.
 */
const shortLabel = (bucket: Bucket, group: string): string | string[] => {
  const date = new Date(bucket === 'hour' ? group : `${group}T00:00Z`);
  const day = date.toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
  return bucket === 'hour' ? [date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' }), day] : day;
};

/**
 * Records where the x axis drew its labels (left and right edge, px) on the canvas as
 * `data-x-labels`: the browser suite checks from it that no two labels overlap.
 */
const labelExtents: Plugin = {
  id: 'labelExtents',
  afterDraw(chart) {
    const scale = chart.scales.x;
    if (!scale) return;
    const { ctx } = chart;
    ctx.save();
    const extents = scale.getLabelItems().map((item) => {
      ctx.font = item.font.string;
      const lines = Array.isArray(item.label) ? item.label : [item.label];
      const width = Math.max(...lines.map((line) => ctx.measureText(line).width));
      const centre = item.options.translation?.[0] ?? 0;
      return [Math.round(centre - width / 2), Math.round(centre + width / 2)];
    });
    ctx.restore();
    chart.canvas.dataset.xLabels = JSON.stringify(extents);
  },
};
Chart.register(labelExtents);

function baseOptions(format: (n: number) => string, stacked: boolean): ChartOptions<'bar' | 'line'> {
  const dark = window.matchMedia('(prefers-color-scheme: dark)').matches;
  const text = dark ? '#c9d1d9' : '#3d444d';
  const grid = dark ? 'rgba(255,255,255,0.08)' : 'rgba(0,0,0,0.08)';
  const reduced = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: reduced ? false : { duration: 250 },
    interaction: { mode: 'index', intersect: false },
    plugins: {
      legend: { labels: { color: text } },
      tooltip: { callbacks: { label: (ctx) => `${ctx.dataset.label ?? ''}: ${format(Number(ctx.parsed.y))}` } },
    },
    scales: {
      // Never rotated, and skipped with room between them: labels never touch.
      x: { stacked, ticks: { color: text, maxRotation: 0, autoSkip: true, autoSkipPadding: 16 }, grid: { color: grid } },
      y: { stacked, beginAtZero: true, ticks: { color: text, callback: (v) => format(Number(v)) }, grid: { color: grid } },
    },
  };
}

interface ChartFigureProps {
  title: string;
  summary: string;
  rows: Array<{ label: string; values: string[] }>;
  columns: string[];
  children: ReactNode;
}

/** A chart with its title, a one-line summary for screen readers and the same numbers as a table. */
function ChartFigure({ title, summary, rows, columns, children }: ChartFigureProps) {
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <div className="chart-canvas" role="img" aria-label={`${title}: ${summary}`}>
        {children}
      </div>
      <details>
        <summary>Show as table</summary>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Time (UTC)</th>
                {columns.map((c) => (
                  <th key={c} scope="col" className="num">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.label}>
                  <th scope="row">{row.label}</th>
                  {row.values.map((v, i) => (
                    <td key={i} className="num">
                      {v}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

export interface UsageChartsProps {
  report: UsageReport;
  bucket: Bucket;
  from: string | undefined;
  to: string | undefined;
}

/** Requests, tokens and cost per hour or day. Loaded lazily with the usage page. */
export default function UsageCharts({ report, bucket, from, to }: UsageChartsProps) {
  const series = useMemo(() => {
    const byGroup = new Map(report.groups.map((g) => [g.group, g]));
    const groups = bucketsBetween(bucket, from, to, report.groups.map((g) => g.group));
    const at = (g: string) => byGroup.get(g);
    return {
      groups,
      labels: groups.map((g) => shortLabel(bucket, g)),
      requests: groups.map((g) => at(g)?.requests ?? 0),
      errors: groups.map((g) => {
        const outcome = at(g)?.by_outcome ?? {};
        return Object.entries(outcome).reduce((n, [k, v]) => (k === 'success' || k === 'video_completed' ? n : n + v), 0);
      }),
      prompt: groups.map((g) => at(g)?.prompt_tokens ?? 0),
      completion: groups.map((g) => at(g)?.completion_tokens ?? 0),
      cost: groups.map((g) => at(g)?.cost_usd ?? 0),
    };
  }, [report, bucket, from, to]);

  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const tableRows = (cols: number[][], format: (n: number) => string) =>
    series.groups.map((g, i) => ({ label: g, values: cols.map((c) => format(c[i]!)) })).filter((r) => r.values.some((v) => v !== format(0)));
  const per = bucket === 'hour' ? 'hour' : 'day';

  return (
    <div className="charts">
      <ChartFigure title={`Requests per ${per}`} summary={`${formatCount(sum(series.requests))} requests, ${formatCount(sum(series.errors))} not successful`} columns={['Requests', 'Not successful']} rows={tableRows([series.requests, series.errors], formatCount)}>
        <Bar
          data={{
            labels: series.labels,
            datasets: [
              { label: 'Requests', data: series.requests, backgroundColor: BLUE },
              { label: 'Not successful', data: series.errors, backgroundColor: ORANGE },
            ],
          }}
          options={baseOptions(formatCount, false) as ChartOptions<'bar'>}
        />
      </ChartFigure>
      <ChartFigure title={`Tokens per ${per}`} summary={`${formatCount(sum(series.prompt))} prompt and ${formatCount(sum(series.completion))} completion tokens`} columns={['Prompt', 'Completion']} rows={tableRows([series.prompt, series.completion], formatCount)}>
        <Bar
          data={{
            labels: series.labels,
            datasets: [
              { label: 'Prompt', data: series.prompt, backgroundColor: BLUE },
              { label: 'Completion', data: series.completion, backgroundColor: GREEN },
            ],
          }}
          options={baseOptions(formatCount, true) as ChartOptions<'bar'>}
        />
      </ChartFigure>
      <ChartFigure title={`Cost per ${per}`} summary={`${formatUsd(sum(series.cost))} in all`} columns={['Cost (USD)']} rows={tableRows([series.cost], formatUsd)}>
        <Line
          data={{ labels: series.labels, datasets: [{ label: 'Cost (USD)', data: series.cost, borderColor: ORANGE, backgroundColor: ORANGE, pointRadius: 2, tension: 0.2 }] }}
          options={baseOptions(formatUsd, false) as ChartOptions<'line'>}
        />
      </ChartFigure>
    </div>
  );
}
