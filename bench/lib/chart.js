// A plain SVG bar chart of throughput at c64 (or a scenario's only concurrency), each bar as a
// share of the direct-to-upstream ceiling and labelled with its requests per second.

const COLORS = { direct: '#9aa5b1', ours: '#2f6fde', portkey: '#e07b39' };
const LABELS = { direct: 'direct (ceiling)', ours: 'this gateway', portkey: 'Portkey' };
const escape = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function chartSvg(run) {
  const groups = run.scenarios
    .map((scenario) => {
      const conns = scenario.results.map((r) => r.connections);
      const c = conns.includes(64) ? 64 : Math.max(...conns);
      const bars = ['direct', 'ours', 'portkey']
        .map((target) => ({ target, result: scenario.results.find((r) => r.target === target && r.connections === c) }))
        .filter((b) => b.result);
      return { name: `${scenario.name} (c${c})`, bars };
    })
    .filter((g) => g.bars.length > 0);

  const barH = 16;
  const gap = 4;
  const groupGap = 18;
  const left = 150;
  const plotW = 420;
  const top = 52;
  const height = top + groups.reduce((h, g) => h + g.bars.length * (barH + gap) + groupGap, 0) + 20;
  const width = left + plotW + 140;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="10" y="20" font-size="14" font-weight="bold">Throughput as a share of the direct-to-upstream ceiling (${escape(run.date)})</text>`,
  ];
  let legendX = 10;
  for (const target of ['direct', 'ours', 'portkey']) {
    out.push(`<rect x="${legendX}" y="30" width="12" height="12" fill="${COLORS[target]}"/>`);
    out.push(`<text x="${legendX + 16}" y="40">${LABELS[target]}</text>`);
    legendX += 150;
  }
  let y = top;
  for (const group of groups) {
    const direct = group.bars.find((b) => b.target === 'direct')?.result.rps;
    const groupH = group.bars.length * (barH + gap);
    out.push(`<text x="${left - 8}" y="${y + groupH / 2 + 4}" text-anchor="end">${escape(group.name)}</text>`);
    for (const { target, result } of group.bars) {
      const share = direct ? result.rps / direct : 0;
      const w = Math.max(1, Math.min(1.2, share) * plotW);
      out.push(`<rect x="${left}" y="${y}" width="${w.toFixed(1)}" height="${barH}" fill="${COLORS[target]}"/>`);
      const label = `${Math.round(result.rps).toLocaleString('en-US')} req/s${direct ? ` · ${Math.round(share * 100)}%` : ''}`;
      out.push(`<text x="${(left + w + 6).toFixed(1)}" y="${y + barH - 4}">${escape(label)}</text>`);
      y += barH + gap;
    }
    y += groupGap;
  }
  out.push(`<line x1="${left}" y1="${top - 4}" x2="${left}" y2="${y - groupGap + 4}" stroke="#333"/>`);
  out.push('</svg>');
  return out.join('\n') + '\n';
}
