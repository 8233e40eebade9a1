// The watchdog's sender, in a worker thread: it builds its body before the probing starts and
// sends it when told, so that building and uploading 30 MB never delays the prober's own loop.
// Before that it takes the case's calibration (see calibrate), on this machine under its load now.
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const { url, body, calibrationBytes } = workerData;
const bytes = Buffer.from(body);

/**
 * This thread's time on a CPU, from Linux's schedstat (nanoseconds on a CPU, then waiting for
 * one): time lost to other work on a loaded machine does not count. Wall time where unreadable.
 */
function onCpuMs() {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return performance.now();
  }
}

/**
 * A known, benign load of the case's size: one JSON.parse and one JSON.stringify of a chat body
 * holding `calibrationBytes` of ordinary prose, the least work a gateway does with such a body,
 * timed on the CPU. The fastest of three rounds, so a round that met a cold heap does not loosen
 * the bound.
 */
function calibrate() {
  const sentence = 'The gateway forwards this sentence to its upstream. ';
  const benign = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: sentence.repeat(Math.floor(calibrationBytes / sentence.length)) }] });
  let fastest = Infinity;
  for (let round = 0; round < 3; round++) {
    const started = onCpuMs();
    JSON.stringify(JSON.parse(benign));
    fastest = Math.min(fastest, onCpuMs() - started);
  }
  return fastest;
}

parentPort.postMessage({ calibrationMs: calibrate() });
parentPort.once('message', async () => {
  try {
    const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${workerData.key}`, 'content-type': 'application/json' }, body: bytes });
    await response.arrayBuffer();
    parentPort.postMessage({ status: response.status });
  } catch (error) {
    parentPort.postMessage({ error: String(error) });
  }
});
