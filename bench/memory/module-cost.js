// What the console/admin/report modules add to a process's heap when loaded after the request path's modules.
//   node --expose-gc bench/memory/module-cost.js [built tree]
import { readFileSync } from 'node:fs';
const root = (await import('node:path')).resolve(process.argv[2] ?? '.');
const anon = () => Number(/^RssAnon:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
const snap = (label) => { globalThis.gc(); globalThis.gc(); const m = process.memoryUsage(); console.log(label, 'heapUsed', (m.heapUsed / 2 ** 20).toFixed(1), 'MiB; anon', anon().toFixed(1), 'MiB'); };
snap('bare node');
await import(`${root}/dist/main.js`);
for (const r of ['chat-completions', 'messages', 'responses', 'embeddings', 'images', 'generate-content', 'rerank', 'models', 'system', 'mcp', 'video-generations', 'videoalt', 'cloud-asset', 'cache']) await import(`${root}/dist/api/${r}/routes.js`);
snap('main.js + request-path routes');
await import(`${root}/dist/api/admin/routes.js`);
snap('+ admin routes');
await import(`${root}/dist/api/console/routes.js`);
await import(`${root}/dist/api/console/static-app.js`);
snap('+ console routes');
await import(`${root}/dist/app.js`);
snap('+ app.js (openapi, swagger, the rest)');
