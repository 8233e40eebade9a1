// Idle memory (issue 24): the gateway as `npm start` runs it on the embedded defaults (no
// configuration: every model served by a built-in simulator), started on a fresh data directory
// and left without a request. Its RSS is read 5 s after it answers (start-up's garbage still
// held) and after V8's memory reducer has had its turn (it gives back the young generation and
// empty pages some 10 to 20 s into idleness), which is the figure that lasts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shippedLaunch } from './setup.js';
import { currentRss, freePort, startProcess } from './procs.js';

const MB = 1024 * 1024;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function measureIdleRss(root, { settleS = 30 } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-bench-idle-'));
  const port = await freePort();
  const launch = shippedLaunch(root);
  const gateway = await startProcess('gateway (idle)', process.execPath, [...launch.flags, join(root, 'dist/cli.js'), 'start'], {
    // Empty values switch off what the bench's own environment might configure.
    env: { ...launch.env, PORT: String(port), HOST: '127.0.0.1', GATEWAY_DATA_DIR: dataDir, GATEWAY_CONFIG: '', DATABASE_URL: '', REDIS_URL: '', OTEL_EXPORTER_OTLP_ENDPOINT: '', LOG_LEVEL: 'warn' },
    readyUrl: `http://127.0.0.1:${port}/healthz`,
  });
  try {
    const samples = [];
    for (let s = 1; s <= settleS; s++) {
      await sleep(1000);
      samples.push(currentRss(gateway.pid));
    }
    const mb = (bytes) => Math.round((bytes / MB) * 10) / 10;
    return { afterStartMb: mb(samples[Math.min(4, samples.length - 1)]), settledMb: mb(samples.at(-1)), settleS, samplesMb: samples.map(mb) };
  } finally {
    await gateway.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
