// The import graph of src/ by room (a top-level folder, its subfolders included; under api/, providers/
// and protocols/ each folder is a room; each file directly in src/ or providers/ is a room of its own), the
// floor each room stands on, and the imports that run upward or in a circle (issue 28).
// `node scripts/import-graph.mjs` prints the report; test/architecture/import-graph.test.ts holds it to the rules.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Floors from the ground up; a room may import its own floor's rooms (without a circle) and those below. */
export const FLOORS = [
  ['contracts', 'errors'],
  ['tokens', 'validation', 'protocols/*', 'sse'],
  ['simulator', 'providers/types', 'providers/upstream-errors', 'providers/json-text', 'providers/channel-fields', 'providers/price-rows'],
  ['providers/*'],
  ['providers/registry'],
  ['config', 'db'],
  // The file store's interface (issue 46): what the Files API, the batch runner and gateway-deps share.
  ['files'],
  ['catalog', 'keys', 'users', 'telemetry', 'metrics', 'requests', 'ratelimit', 'usage', 'cache'],
  ['gateway', 'tasks', 'gateway-deps'],
  ['plugins'],
  // The batch runner (issue 46) reads the families' facts and runs lines through the app: an api room in all but name.
  ['api', 'api/*', 'batches'],
  ['api/management'],
  // The request and task logs are mounted by both admin and console (each under its own base path):
  // a floor of their own below them says so, and keeps either from reaching up into its mounters.
  ['api/request-log', 'api/task-log'],
  ['api/admin', 'api/console', 'api/openapi', 'api/system'],
  ['app', 'main', 'cli'],
];

const here = path.dirname(fileURLToPath(import.meta.url));
const IMPORT = /(?:^|\n)\s*(import|export)\s+(type\s+)?[^;'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

const SPLIT = new Set(['api', 'providers', 'protocols']);

export function roomOf(file) {
  const parts = file.split('/');
  const bare = (name) => name.replace(/\.tsx?$/, '');
  if (parts.length === 1) return bare(parts[0]);
  if (!SPLIT.has(parts[0])) return parts[0];
  // Files directly in providers/ are rooms of their own (types.ts below the vendors, registry.ts above).
  if (parts.length === 2) return parts[0] === 'providers' ? `providers/${bare(parts[1])}` : parts[0];
  return `${parts[0]}/${parts[1]}`;
}

export function floorOf(room) {
  for (let i = 0; i < FLOORS.length; i++) {
    for (const pattern of FLOORS[i]) {
      if (pattern === room) return i;
      if (pattern.endsWith('/*') && room.startsWith(pattern.slice(0, -1)) && !room.slice(pattern.length - 1).includes('/')) {
        // an explicitly listed room (providers/registry) wins over the wildcard
        if (!FLOORS.some((f) => f.includes(room))) return i;
      }
    }
  }
  return undefined;
}

export function readImports(srcDir = path.join(here, '..', 'src')) {
  const files = [];
  (function walk(dir) {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.tsx?$/.test(entry.name)) files.push(path.relative(srcDir, full).split(path.sep).join('/'));
    }
  })(srcDir);
  const imports = [];
  for (const from of files) {
    const text = fs.readFileSync(path.join(srcDir, from), 'utf8');
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[3] ?? m[4];
      const to = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec)).replace(/\.js$/, '.ts');
      imports.push({ from, to, typeOnly: Boolean(m[2]), dynamic: Boolean(m[4]) });
    }
  }
  return { files, imports };
}

/** Strongly connected rooms (Tarjan): every group of more than one room is a circle. */
function circles(edges) {
  let index = 0;
  const stack = [], onStack = new Set(), idx = new Map(), low = new Map(), groups = [];
  const visit = (v) => {
    idx.set(v, index); low.set(v, index); index++; stack.push(v); onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); }
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const group = [];
      let w;
      do { w = stack.pop(); onStack.delete(w); group.push(w); } while (w !== v);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const v of edges.keys()) if (!idx.has(v)) visit(v);
  return groups;
}

export function analyse(srcDir) {
  const { files, imports } = readImports(srcDir);
  const rooms = new Set(files.map(roomOf));
  const edges = new Map([...rooms].map((r) => [r, new Set()]));
  const upward = [], unplaced = new Set();
  for (const imp of imports) {
    const a = roomOf(imp.from), b = roomOf(imp.to);
    if (a === b) continue;
    edges.get(a)?.add(b);
    const fa = floorOf(a), fb = floorOf(b);
    if (fa === undefined) unplaced.add(a);
    if (fb === undefined) unplaced.add(b);
    if (fa !== undefined && fb !== undefined && fb > fa) upward.push({ ...imp, fromRoom: a, toRoom: b });
  }
  const floorsUsed = new Set([...rooms].map(floorOf).filter((f) => f !== undefined));
  return { files: files.length, rooms: rooms.size, floors: floorsUsed.size, imports: imports.length, upward, circles: circles(edges), unplaced: [...unplaced].sort() };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const r = analyse(process.argv[2]);
  console.log(`${r.files} files, ${r.rooms} rooms on ${r.floors} floors, ${r.imports} imports`);
  if (r.unplaced.length) console.log(`rooms on no floor: ${r.unplaced.join(', ')}`);
  console.log(`${r.upward.length} upward imports:`);
  for (const u of r.upward) console.log(`  ${u.from} -> ${u.to}${u.dynamic ? ' (lazy)' : ''}${u.typeOnly ? ' (type)' : ''}`);
  console.log(`${r.circles.length} circles:`);
  for (const c of r.circles) console.log(`  ${c.join(' <-> ')}`);
}
