import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { TEST_KEY } from '../helpers/gateway.js';
import { startGatewayProcess, type GatewayProcess } from '../helpers/instance-process.js';
import { measureTwice } from './measure-twice.js';

/**
 * Issue 13 item 4, the event-loop watchdog: while one request with its endpoint's largest legal
 * body or a most adversarial shape is processed, `/healthz` keeps answering. A prober asks every
 * 5 ms and keeps the slowest answer; each case is one request.
 *
 * The bound is relative (issue 36 item 5): a fixed 100 ms failed on a loaded machine (145-196 ms).
 * Right before each case, on the same machine, the sender times a known, benign load of the same
 * size on the CPU (parsing and re-serialising a 30 MB chat body of ordinary prose, see
 * send-body.mjs); the slowest answer must stay under STALL_FACTOR times that plus STALL_FLOOR_MS.
 * Each answer's time leaves out what the gateway's loop thread and the prober's thread spent
 * runnable but waiting for a CPU (Linux schedstat), so other work on the machine slows neither
 * side of the comparison, while a request that holds the loop does. Measured on 2 shared cores
 * (load average 6): calibration 135-150 ms, slowest answer 2-42 ms, and 280-320 ms once a
 * synchronous 300 ms CPU loop was put in the chat handler, which failed. The calibration runs in
 * a worker, apart from the gateway's code, so a stall every request pays is caught too.
 *
 * The gateway runs as a process of its own, from the build as `npm start` runs it, and its
 * channels point at fake vendors in a third process, as real vendors are remote (the built-in
 * simulator would parse every body a second time on the same loop). Each body is built and sent
 * by a worker thread, so the 30 MB upload never delays the prober's own loop.
 */
const STALL_FACTOR = 1;
const STALL_FLOOR_MS = 40;
const BODY_BYTES = 30 * 1024 * 1024; // under the 32 MB default body limit

/** Milliseconds a thread has been runnable but waiting for a CPU; 0 where schedstat is unreadable. */
function waitingForCpuMs(thread: string): number {
  try {
    return Number(readFileSync(`${thread}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return 0;
  }
}

const fill = (unit: string, bytes: number) => unit.repeat(Math.floor(bytes / Buffer.byteLength(unit)));
/** As many copies of `item` as fit in about `bytes` of JSON. */
const many = <T>(item: T, bytes: number): T[] => Array.from({ length: Math.floor(bytes / (JSON.stringify(item).length + 1)) }, () => item);
const nested = (levels: number): unknown => (levels === 0 ? 'x' : { a: nested(levels - 1) });

const CASES: Array<[string, string, unknown]> = [
  ['chat: one unbroken 30 MB word', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: fill('a', BODY_BYTES) }] }],
  ['chat: 30 MB of CJK without punctuation', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: fill('中', BODY_BYTES) }] }],
  ['chat: a million tiny messages', '/v1/chat/completions', { model: 'delta-4.1', messages: many({ role: 'user', content: 'a' }, BODY_BYTES) }],
  ['chat: 64-level nesting in a tool schema', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { x: nested(58) } } } }] }],
  ['messages: same-role messages', '/v1/messages', { model: 'alpha-sonnet-4-5-20250929', max_tokens: 16, messages: many({ role: 'user', content: 'a' }, BODY_BYTES) }],
  ['messages: many content blocks', '/v1/messages', { model: 'alpha-sonnet-4-5-20250929', max_tokens: 16, messages: [{ role: 'user', content: many({ type: 'text', text: 'a' }, BODY_BYTES) }] }],
  ['responses: many input items', '/v1/responses', { model: 'epsilon-4.7', input: many({ role: 'user', content: 'a' }, BODY_BYTES) }],
  ['responses: one unbroken word', '/v1/responses', { model: 'epsilon-4.7', input: fill('a', BODY_BYTES) }],
  ['generate-content: many parts', '/v1beta/models/gamma-2.5-flash-lite:generateContent', { contents: [{ role: 'user', parts: many({ text: 'a' }, BODY_BYTES) }] }],
  ['generate-content: many contents', '/v1beta/models/gamma-2.5-flash-lite:generateContent', { contents: many({ role: 'user', parts: [{ text: 'a' }] }, BODY_BYTES) }],
  ['images: many unknown fields', '/v1/images/generations', { model: 'gamma-3.1-flash-image', prompt: 'a cat', extra: many(1, BODY_BYTES) }],
  ['images: one unbroken prompt', '/v1/images/generations', { model: 'gamma-3.1-flash-image', prompt: fill('a', BODY_BYTES) }],
  ['generate-content: one unbroken part', '/v1beta/models/gamma-2.5-flash-lite:generateContent', { contents: [{ role: 'user', parts: [{ text: fill('a', BODY_BYTES) }] }] }],
  ['messages: one unbroken text', '/v1/messages', { model: 'alpha-sonnet-4-5-20250929', max_tokens: 16, messages: [{ role: 'user', content: fill('a', BODY_BYTES) }] }],
  ['chat: a base64 image of 30 MB', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${fill('QUFB', BODY_BYTES)}` } }] }] }],
];

// A probe that meets an unlucky moment (a GC in the prober, a page fault) is measured once more (measureTwice).
describe('event-loop watchdog', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-watchdog-'));
  let gateway: GatewayProcess;
  let vendors: ChildProcess;
  beforeAll(async () => {
    vendors = spawn(process.execPath, [fileURLToPath(new URL('./fake-vendors.mjs', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<number>((resolve) => vendors.stdout!.once('data', (chunk: Buffer) => resolve(Number(/listening (\d+)/.exec(chunk.toString())![1]))));
    const base = `http://127.0.0.1:${port}`;
    const channel = (name: string, vendor: string, baseUrl: string, models: Record<string, string>) => ({ name, vendor, base_url: baseUrl, api_key: 'k', models, max_retries: 0 });
    gateway = await startGatewayProcess({
      name: 'watched',
      built: true,
      dataDir,
      databaseUrl: '',
      file: {
        channels: [
          channel('openai', 'openai', `${base}/v1`, { 'delta-4.1': 'gpt-4.1' }),
          channel('zhipu', 'zhipu', `${base}/v4`, { 'epsilon-4.7': 'glm-4.7' }),
          channel('anthropic', 'anthropic', base, { 'alpha-sonnet-4-5-20250929': 'claude-sonnet-4-5' }),
          channel('gemini', 'gemini', base, { 'gamma-2.5-flash-lite': 'gemini-2.5-flash-lite', 'gamma-3.1-flash-image': 'gemini-3.1-flash-image' }),
        ],
      } as never,
    });
  }, 30_000);
  afterAll(async () => {
    await gateway?.stop();
    vendors?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.each(CASES)('%s: /healthz stays within the calibrated bound', async (name, path, body) => {
    await measureTwice(name, async () => {
      const workerData = { url: gateway.url + path, key: TEST_KEY, body: JSON.stringify(body), calibrationBytes: BODY_BYTES };
      const sender = new Worker(new URL('./send-body.mjs', import.meta.url), { workerData });
      const next = () => new Promise<{ status?: number; error?: string; calibrationMs?: number }>((resolve) => sender.once('message', resolve));
      const { calibrationMs } = await next();
      let slowest = 0;
      let running = true;
      // The gateway's event loop is its main thread, whose id is the process id.
      const waited = () => waitingForCpuMs(`/proc/${gateway.pid}/task/${gateway.pid}`) + waitingForCpuMs('/proc/thread-self');
      const prober = (async () => {
        while (running) {
          const started = performance.now();
          const waitedBefore = waited();
          await fetch(`${gateway.url}/healthz`).then((r) => r.arrayBuffer());
          slowest = Math.max(slowest, performance.now() - started - (waited() - waitedBefore));
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      const answered = next();
      sender.postMessage('go');
      const { status, error } = await answered;
      running = false;
      await prober;
      await sender.terminate();
      expect(error, name).toBeUndefined();
      expect(status).toBeLessThan(500);
      const boundMs = STALL_FACTOR * calibrationMs! + STALL_FLOOR_MS;
      return { within: slowest < boundMs, figures: `slowest /healthz ${slowest.toFixed(1)} ms against a bound of ${boundMs.toFixed(1)} ms (calibration ${calibrationMs!.toFixed(1)} ms)` };
    });
  }, 120_000);
});
