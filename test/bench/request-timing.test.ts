import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'request-timing-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A plain node:http server that answers /slow after 150 ms and anything else at once.
const SERVER = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  if (req.url === '/slow') setTimeout(() => res.end('slow'), 150); else res.end('fast');
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

/**
 * The many-core bench's preload (issue 36): what it records must separate the server's own time
 * from what the client saw, or the tail cannot be placed.
 */
describe('bench request-timing preload (issue 36)', () => {
  it("records each request's time in the server and the accept-to-first-request wait, per second", async () => {
    const child = spawn(process.execPath, ['--import', join(root, 'bench/lib/request-timing.mjs'), '-e', SERVER], {
      env: { ...process.env, GATEWAY_TIMING_DIR: dir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const port = await new Promise<string>((resolve) => child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())));
      const from = Date.now();
      for (let i = 0; i < 20; i++) expect(await (await fetch(`http://127.0.0.1:${port}/fast`)).text()).toBe('fast');
      expect(await (await fetch(`http://127.0.0.1:${port}/slow`)).text()).toBe('slow');
      const to = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 2_200));
      const { readRequestTiming } = (await import(join(root, 'bench/lib/request-timing-read.js'))) as {
        readRequestTiming: (d: string, f: number, t: number) => { handled: { p50Ms: number; maxMs: number }; firstWait: { maxMs: number | undefined }; loopDelayMaxMs: number };
      };
      const timing = readRequestTiming(dir, from, to);
      // Buckets are 10% wide: the slow request's 150 ms lands in (150, 165].
      expect(timing.handled.maxMs).toBeGreaterThanOrEqual(150);
      expect(timing.handled.maxMs).toBeLessThan(400);
      expect(timing.handled.p50Ms).toBeLessThan(100);
      expect(timing.firstWait.maxMs).toBeDefined();
      expect(timing.loopDelayMaxMs).toBeGreaterThan(0);
      // A window after the requests holds none of them.
      expect(readRequestTiming(dir, to + 5_000, to + 6_000).handled.maxMs).toBeUndefined();
    } finally {
      child.kill();
    }
  });
});
