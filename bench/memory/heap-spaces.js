// Where a started gateway's memory is: V8 heap spaces after a full GC, against RssAnon.
//   MALLOC_ARENA_MAX=2 node --expose-gc --max-semi-space-size=12 --heap-growing-percent=30 bench/memory/heap-spaces.js [built tree]
import { readFileSync, mkdtempSync } from 'node:fs';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const root = (await import('node:path')).resolve(process.argv[2] ?? '.');
const status = () => readFileSync('/proc/self/status', 'utf8');
const kib = (f) => Number(new RegExp(`^${f}:\\s+(\\d+)`, 'm').exec(status())[1]) / 1024;
const show = (label) => {
  globalThis.gc(); globalThis.gc();
  const h = getHeapStatistics();
  const spaces = getHeapSpaceStatistics().map((s) => `${s.space_name.replace('_space', '')} ${(s.space_used_size / 2 ** 20).toFixed(1)}/${(s.physical_space_size / 2 ** 20).toFixed(1)}`).join(', ');
  const m = process.memoryUsage();
  console.log(`${label}: RssAnon ${kib('RssAnon').toFixed(1)} MiB, heap used ${(h.used_heap_size / 2 ** 20).toFixed(1)} / physical ${(h.total_physical_size / 2 ** 20).toFixed(1)}, external ${(m.external / 2 ** 20).toFixed(1)}, arrayBuffers ${(m.arrayBuffers / 2 ** 20).toFixed(1)} MiB; spaces used/physical: ${spaces}`);
};
show('bare');
const { loadConfig } = await import(`${root}/dist/config/load.js`);
const { startGateway } = await import(`${root}/dist/main.js`);
const dataDir = mkdtempSync(join(tmpdir(), 'heap36-'));
const config = loadConfig({ ...process.env, GATEWAY_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', GATEWAY_CONFIG: '', LOG_LEVEL: 'warn', GATEWAY_BOOTSTRAP_KEY: 'sk-gw-heap-36-key' });
const gw = await startGateway(config, { announce: () => undefined });
show('started');
const body = (stream) => JSON.stringify({ model: 'delta-4.1', messages: [{ role: 'user', content: 'hello there' }], max_tokens: 16, stream });
for (let at = 0; at < 400; at += 16) await Promise.all(Array.from({ length: 16 }, (_, i) => fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-gw-heap-36-key', 'content-type': 'application/json' }, body: body((at + i) % 3 === 0) }).then((r) => r.arrayBuffer())));
await new Promise((r) => setTimeout(r, 3000));
show('after 400 requests');
await gw.close();
