import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, requestWith } from '../../src/gateway/undici-agent.js';
import { downloadVideo, videoDir } from '../../src/tasks/media-store.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** Run in a fresh process on the built modules: what loading the gateway's HTTP clients does to undici. */
const PROBE = `
import { createRequire } from 'node:module';
await import('./dist/gateway/upstream-client.js');
await import('./dist/tasks/poller.js');
const require = createRequire(import.meta.url);
const loaded = Object.keys(require.cache);
const Dispatcher = require('undici/lib/dispatcher/dispatcher.js');
console.log(JSON.stringify({
  index: loaded.some((path) => /undici[\\\\/]index\\.js$/.test(path)),
  agent: loaded.some((path) => /undici[\\\\/]lib[\\\\/]dispatcher[\\\\/]agent\\.js$/.test(path)),
  patched: ['request', 'stream', 'pipeline'].filter((name) => name in Dispatcher.prototype),
}));
`;

describe("undici's Agent without the package index, and no prototype patch (issue 28)", () => {
  let server: Server;
  let origin = '';
  const video = Buffer.alloc(70_000, 7);

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/result.mp4') res.writeHead(200, { 'content-type': 'video/mp4' }).end(video);
      else res.writeHead(404).end('missing');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('loads the Agent from its own module, never the index (about 3 MB of heap), and attaches nothing to Dispatcher', () => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE], { cwd: ROOT, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ index: false, agent: true, patched: [] });
  });

  it('sends a request on the dispatcher passed per call', async () => {
    const agent = new Agent({ connections: 1 });
    try {
      const ok = await requestWith(agent, { origin, path: '/result.mp4', method: 'GET' });
      expect(ok.statusCode).toBe(200);
      expect(Buffer.from(await ok.body.arrayBuffer()).equals(video)).toBe(true);
      const missing = await requestWith(agent, { origin, path: '/gone', method: 'GET' });
      expect(missing.statusCode).toBe(404);
      expect(await missing.body.text()).toBe('missing');
    } finally {
      await agent.close();
    }
  });

  it("downloads a task's result file through such an Agent, as the poller does", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-undici-'));
    const agent = new Agent({ connections: 2 });
    try {
      const saved = await downloadVideo({ dispatcher: agent, url: `${origin}/result.mp4`, dataDir, signal: new AbortController().signal });
      expect(saved.bytes).toBe(video.length);
      expect(readFileSync(join(videoDir(dataDir), saved.file)).equals(video)).toBe(true);
      await expect(downloadVideo({ dispatcher: agent, url: `${origin}/gone`, dataDir, signal: new AbortController().signal })).rejects.toThrow(/HTTP 404/);
    } finally {
      await agent.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
