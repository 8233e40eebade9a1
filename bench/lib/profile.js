// Summarises a V8 .cpuprofile (node --cpu-prof): self time by function, by file and by owner
// (our code, each npm package, Node internals, GC), as shares of the busy (non-idle) time.
import { readFileSync } from 'node:fs';

/** Where a frame's code comes from: 'ours' (dist/), an npm package, 'node' internals, or V8. */
function ownerOf(url, root) {
  if (!url) return 'v8/native';
  if (url.startsWith('node:')) return 'node';
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = path.slice(nm + '/node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (path.startsWith(`${root}/dist/`)) return 'ours';
  return 'other';
}

/** dist/x/y.js → src/x/y.ts, the file to read (line numbers are those of the emitted JS). */
function shortPath(url, root) {
  const path = url.replace(/^file:\/\//, '');
  if (path.startsWith(`${root}/dist/`)) return path.replace(`${root}/dist/`, 'src/').replace(/\.js$/, '.ts');
  return path.replace(/^.*\/node_modules\//, '');
}

export function summariseProfile(file, root) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const fns = new Map();
  const files = new Map();
  const owners = new Map();
  let busy = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const { callFrame } = byId.get(id);
    const name = callFrame.functionName || '(anonymous)';
    if (name === '(idle)') {
      idle += us;
      continue;
    }
    busy += us;
    const owner = name === '(garbage collector)' ? 'gc' : name === '(program)' ? 'v8/program' : ownerOf(callFrame.url, root);
    const path = callFrame.url ? shortPath(callFrame.url, root) : '';
    const fnKey = `${owner}\t${path}:${callFrame.lineNumber + 1}\t${name}`;
    fns.set(fnKey, (fns.get(fnKey) ?? 0) + us);
    if (path) files.set(`${owner}\t${path}`, (files.get(`${owner}\t${path}`) ?? 0) + us);
    owners.set(owner, (owners.get(owner) ?? 0) + us);
  }
  const inclusive = inclusiveOurs(profile, byId, selfUs, root);
  const top = (map, n) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([key, us]) => ({ key: key.split('\t'), ms: Math.round(us / 1000), pct: Math.round((us / busy) * 1000) / 10 }));
  return {
    file,
    busyMs: Math.round(busy / 1000),
    idleMs: Math.round(idle / 1000),
    owners: top(owners, 30),
    files: top(files, 25),
    functions: top(fns, 40),
    oursFunctions: top(new Map([...fns].filter(([k]) => k.startsWith('ours\t'))), 25),
    oursInclusive: top(inclusive, 30),
  };
}

/**
 * Total (inclusive) time of our functions: every sample counts once for each distinct function
 * of ours on its stack, so time spent in libraries called from our code is charged to it.
 */
function inclusiveOurs(profile, byId, selfUs, root) {
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const keysOf = new Map();
  const stackKeys = (id) => {
    if (keysOf.has(id)) return keysOf.get(id);
    const node = byId.get(id);
    const up = parent.has(id) ? stackKeys(parent.get(id)) : [];
    const { url, functionName, lineNumber } = node.callFrame;
    let keys = up;
    if (url && ownerOf(url, root) === 'ours') {
      const key = `ours\t${shortPath(url, root)}:${lineNumber + 1}\t${functionName || '(anonymous)'}`;
      if (!up.includes(key)) keys = [...up, key];
    }
    keysOf.set(id, keys);
    return keys;
  };
  const totals = new Map();
  for (const [id, us] of selfUs) {
    if (byId.get(id).callFrame.functionName === '(idle)') continue;
    for (const key of stackKeys(id)) totals.set(key, (totals.get(key) ?? 0) + us);
  }
  return totals;
}

export function profileMarkdown(title, summary) {
  const lines = [`## ${title}`, '', `busy ${summary.busyMs} ms, idle ${summary.idleMs} ms (self time; shares of busy time)`, ''];
  lines.push('### By owner', '', '| owner | ms | % |', '| --- | --- | --- |');
  for (const r of summary.owners) lines.push(`| ${r.key[0]} | ${r.ms} | ${r.pct} |`);
  lines.push('', '### Our code, by function', '', '| file:line (dist) | function | ms | % |', '| --- | --- | --- | --- |');
  for (const r of summary.oursFunctions) lines.push(`| ${r.key[1]} | ${r.key[2]} | ${r.ms} | ${r.pct} |`);
  lines.push('', '### Our code, inclusive (self + everything it calls)', '', '| file:line (dist) | function | ms | % |', '| --- | --- | --- | --- |');
  for (const r of summary.oursInclusive) lines.push(`| ${r.key[1]} | ${r.key[2]} | ${r.ms} | ${r.pct} |`);
  lines.push('', '### All code, by function', '', '| owner | file:line | function | ms | % |', '| --- | --- | --- | --- | --- |');
  for (const r of summary.functions) lines.push(`| ${r.key[0]} | ${r.key[1]} | ${r.key[2]} | ${r.ms} | ${r.pct} |`);
  lines.push('', '### By file', '', '| owner | file | ms | % |', '| --- | --- | --- | --- |');
  for (const r of summary.files) lines.push(`| ${r.key[0]} | ${r.key[1]} | ${r.ms} | ${r.pct} |`);
  return lines.join('\n') + '\n';
}
