import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { bearer, createKey } from '../helpers/admin.js';
import { measureTwice } from './measure-twice.js';

/**
 * Issue 34: any endpoint parsed a 2 MB body before its key's limits were looked at; 50 such
 * requests in parallel from one key pushed another key's chat from ~15 ms to 260-638 ms. Now the
 * key's limits run on the headers (plugins/admission-gate.ts: at most `rpm` of its bodies in
 * flight), and once its request window for a model is refused, its next bodies for that model are
 * refused on a look at their `model`, unparsed (ratelimit/exhausted-windows.ts). Measured as a
 * ratio: the probe tenant's chat latency while the flood runs, against the same probe's latency
 * under the same flood from a key that does not exist (refused on its headers), never a wall-time
 * constant. Before the unparsed refusal the ratio was 5.4-5.7 on a quiet machine; with it, 1.1-1.2.
 */
const PARALLEL = 50;
const BODY_BYTES = 2 * 1024 * 1024;
/** Rounds of the flood, so that it lasts while the probe samples. */
const ROUNDS = 3;
/** The probe may be this many times slower under the flood than under the calibration's. */
const RATIO = 2;

/** The flood, in a worker thread: building and sending 100 MB never runs on the probe's (and gateway's) loop. */
const FLOOD = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { url, secret, parallel, bytes, rounds } = workerData;
// A valid chat body of many short turns (about 60,000 JSON values, under the 100,000 cap): what a
// conversation's history looks like, and work to parse and validate on every version of the gateway.
const turn = { role: 'user', content: 'A turn of a long conversation that this key sends many times at once, again.' };
const body = Buffer.from(JSON.stringify({ model: 'delta-4.1', messages: Array.from({ length: Math.floor(bytes / JSON.stringify(turn).length) }, () => turn) }));
const agent = new http.Agent({ keepAlive: false, maxSockets: parallel });
const one = () => new Promise((resolve) => {
  const request = http.request(url + '/v1/chat/completions', { method: 'POST', agent, headers: { authorization: 'Bearer ' + secret, 'content-type': 'application/json', 'content-length': body.length } }, (response) => {
    response.resume();
    response.on('end', () => resolve(response.statusCode));
  });
  request.on('error', () => resolve(0));
  request.end(body);
});
(async () => {
  parentPort.postMessage({ started: true });
  const statuses = [];
  for (let round = 0; round < rounds; round++) statuses.push(...(await Promise.all(Array.from({ length: parallel }, one))));
  parentPort.postMessage({ statuses });
})();
`;

describe('parallel 2 MB bodies from one key (issue 34)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

  /** The probe tenant's chat latencies (ms) while one flood of `secret` runs, and the flood's statuses. */
  async function probeDuring(secret: string, probeOnce: () => Promise<number>): Promise<{ latencies: number[]; statuses: number[] }> {
    const worker = new Worker(FLOOD, { eval: true, workerData: { url: gateway.url, secret, parallel: PARALLEL, bytes: BODY_BYTES, rounds: ROUNDS } });
    let statuses: number[] | undefined;
    const started = new Promise<void>((resolve) => worker.once('message', () => resolve()));
    const done = new Promise<void>((resolve) =>
      worker.on('message', (message: { statuses?: number[] }) => {
        if (!message.statuses) return;
        statuses = message.statuses;
        resolve();
      }),
    );
    await started;
    const latencies: number[] = [];
    while (statuses === undefined) latencies.push(await probeOnce());
    await done;
    await worker.terminate();
    return { latencies, statuses: statuses! };
  }

  it("do not starve another key's chat: they cost what a flood refused on its headers (401) costs", async () => {
    const attacker = await createKey(gateway, { rpm: 2 });
    const probe = await createKey(gateway, {});
    const chat = { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] };
    const probeOnce = async () => {
      const started = performance.now();
      const answer = await call(gateway, 'POST', '/v1/chat/completions', chat, bearer(probe.key));
      expect(answer.status).toBe(200);
      return performance.now() - started;
    };
    for (let i = 0; i < 5; i++) await probeOnce();
    // A pair of runs: the calibration (the same flood with a key that does not exist, refused on
    // its headers on every version of the gateway; the machine's load and the upload's own cost
    // are in it), then the flood. A gateway that starves the probe (5.4× before issue 34) is over
    // the bound in both pairs when one is over it.
    await measureTwice('parallel 2 MB bodies', async () => {
      const calibration = await probeDuring('sk-gw-no-such-key-000000000000', probeOnce);
      expect(calibration.statuses.every((status) => status === 401)).toBe(true);
      const flood = await probeDuring(attacker.key, probeOnce);
      // The flood ran: most of it refused (on main too, but after each 2 MB body was parsed).
      expect(flood.statuses.filter((status) => status === 429).length).toBeGreaterThan(PARALLEL * ROUNDS * 0.8);
      const floodMs = median(flood.latencies);
      const calibrationMs = median(calibration.latencies);
      const figures = `probe ${floodMs.toFixed(1)} ms under the flood (${flood.latencies.length} probes) against ${calibrationMs.toFixed(1)} ms under the refused one (${(floodMs / calibrationMs).toFixed(2)}×, bound ${RATIO}×)`;
      return { within: floodMs <= RATIO * calibrationMs, figures };
    });
  });
});
