import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN, TEST_KEY } from '../helpers/gateway.js';

const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli.js');

/** Preloaded into the gateway: appends the URL of every module it loads (import and require) to LOADED_MODULES. */
const RECORDER = `data:text/javascript,${encodeURIComponent(`
import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    if (resolved.url.startsWith('file:')) appendFileSync(process.env.LOADED_MODULES, resolved.url + '\\n');
    return resolved;
  },
});`)}`;

/**
 * What a gateway on the embedded defaults loads only when something uses it (issue 24: idle
 * memory), by module path: the simulators' own modules and what they need, the tokenizer,
 * swagger-ui and its file server, prom-client, argon2, Fastify's own compilers, rate-limiter-
 * flexible's index and Redis store, and the stores and SDKs of configurations it does not have.
 */
const LOADED_WHEN_USED = [
  /\/dist\/simulator\/(?!server\.js)/,
  /\/dist\/providers\/[^/]+\/simulator[^/]*\.js$/,
  /\/node_modules\/gpt-tokenizer\//,
  /\/node_modules\/json-schema-faker\//,
  /\/node_modules\/pngjs\//,
  /\/node_modules\/@fastify\/swagger-ui\//,
  /\/node_modules\/@fastify\/static\//,
  /\/node_modules\/prom-client\//,
  /\/node_modules\/@node-rs\/argon2/,
  /\/node_modules\/fast-json-stringify\/index\.js/,
  /\/node_modules\/@fastify\/ajv-compiler\//,
  /\/node_modules\/rate-limiter-flexible\/(index\.js|lib\/RateLimiterRedis)/,
  /\/node_modules\/(ioredis|pg)\//,
  /\/node_modules\/@opentelemetry\/sdk-trace/,
];

describe.skipIf(!('registerHooks' in nodeModule))('what an idle gateway has loaded (issue 24)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-lazy-'));
  const record = join(dataDir, 'loaded.txt');
  let child: ChildProcess;
  let url = '';
  const loaded = () => readFileSync(record, 'utf8').split('\n').filter(Boolean);
  const loadedMatching = (pattern: RegExp) => loaded().filter((module) => pattern.test(module));

  beforeAll(async () => {
    child = spawn(process.execPath, ['--import', RECORDER, CLI, 'start'], {
      env: {
        ...process.env,
        GATEWAY_DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        GATEWAY_BOOTSTRAP_KEY: TEST_KEY,
        GATEWAY_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        GATEWAY_CONFIG: '',
        DATABASE_URL: '',
        REDIS_URL: '',
        OTEL_EXPORTER_OTLP_ENDPOINT: '',
        LOG_LEVEL: 'warn',
        LOADED_MODULES: record,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line: ${output}`)), 20_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
    });
  });
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('at start: the gateway, not what only some configurations or requests need', () => {
    expect(loadedMatching(/\/dist\/main\.js$/)).toHaveLength(1);
    expect(loadedMatching(/\/node_modules\/better-sqlite3\//).length).toBeGreaterThan(0);
    for (const pattern of LOADED_WHEN_USED) expect(loadedMatching(pattern), String(pattern)).toEqual([]);
  });

  it('a simulator-backed model loads its vendor simulator on the first request, and only that one', async () => {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'delta-4.1', messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-simulator')).toBe('openai');
    expect((await response.json()) as { choices: unknown[] }).toHaveProperty('choices.0.message.content');
    expect(loadedMatching(/\/dist\/providers\/openai\/simulator\.js$/)).toHaveLength(1);
    expect(loadedMatching(/\/dist\/providers\/(anthropic|gemini|kling)\/simulator\.js$/)).toEqual([]);
  });

  it('/docs loads swagger-ui at its first request; /metrics loads prom-client at the first scrape', async () => {
    const docs = await fetch(`${url}/docs`, { redirect: 'follow' });
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('<html');
    expect(loadedMatching(/\/node_modules\/@fastify\/swagger-ui\//).length).toBeGreaterThan(0);

    const metrics = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    expect(text).toContain('process_resident_memory_bytes');
    expect(text).toContain('gateway_requests_total{family="chat-completions"');
    expect(loadedMatching(/\/node_modules\/prom-client\//).length).toBeGreaterThan(0);
  });
});
