// What the SQLite writer thread adds to a process: USS before and after its first batch.
//   MALLOC_ARENA_MAX=2 node --expose-gc --max-semi-space-size=12 --heap-growing-percent=30 bench/memory/writer-thread.js [built tree]
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const root = (await import('node:path')).resolve(process.argv[2] ?? '.');
const uss = () => { const r = readFileSync('/proc/self/smaps_rollup', 'utf8'); const g = (f) => Number(new RegExp(`^${f}:\\s+(\\d+)`, 'm').exec(r)[1]) / 1024; return g('Private_Clean') + g('Private_Dirty'); };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const { connectSqlite, sqliteWriterOf } = await import(`${root}/dist/db/connect.js`);
const db = await connectSqlite(mkdtempSync(join(tmpdir(), 'wcost36-')));
globalThis.gc(); await sleep(2000); globalThis.gc();
const before = uss();
const w = sqliteWriterOf(db);
for (let b = 0; b < 20; b++) await w.write('insert into request_details (entry_id, request_id, created_at, retries, fallbacks) values (?, ?, ?, ?, ?)', undefined, Array.from({ length: 200 }, (_, i) => [`e_${b}_${i}`, `r_${b}_${i}`, i, 0, 0]));
globalThis.gc(); await sleep(3000); globalThis.gc();
console.log(`USS before the writer thread ${before.toFixed(1)} MiB, after 20 batches on it ${uss().toFixed(1)} MiB: +${(uss() - before).toFixed(1)} MiB`);
await db.destroy();
