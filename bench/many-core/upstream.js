// The fake upstream for the many-core run: the gateway's own OpenAI simulator (dist/), in N
// processes sharing one port through node:cluster, so the upstream is never what limits the
// gateway. The primary prints one JSON line ({"openai": url}) once every process listens.
//
//   node bench/many-core/upstream.js <root> <port> <processes>
import cluster from 'node:cluster';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [root, portText, processesText] = process.argv.slice(2);
const port = Number(portText);
const processes = Number(processesText ?? '4');

if (cluster.isPrimary) {
  let listening = 0;
  for (let i = 0; i < processes; i++) {
    cluster.fork().on('message', () => {
      if (++listening === processes) process.stdout.write(JSON.stringify({ openai: `http://127.0.0.1:${port}` }) + '\n');
    });
  }
  cluster.on('exit', (worker, code) => {
    process.stderr.write(`upstream worker ${worker.process.pid} exited (${code})\n`);
  });
  process.once('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill('SIGTERM');
    process.exit(0);
  });
} else {
  const load = (path) => import(pathToFileURL(join(root, path)).href);
  const { startSimulator } = await load('dist/simulator/server.js');
  const { providerFor } = await load('dist/providers/registry.js');
  await startSimulator(providerFor('openai').simulator, {}, port);
  process.send?.('listening');
  process.once('SIGTERM', () => process.exit(0));
}
