import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSqlite } from '../../../src/db/connect.js';
import { ensureAdminToken } from '../../../src/keys/bootstrap.js';
import { GatewayError } from '../../../src/errors.js';
import { UpstreamClient } from '../../../src/gateway/upstream-client.js';
import { CircuitBreakers } from '../../../src/gateway/circuit-breaker.js';
import { UsageRecorder } from '../../../src/usage/usage-recorder.js';
import { registerMetrics } from '../../../src/plugins/metrics.js';
import type { GatewayDeps } from '../../../src/gateway-deps.js';
import { call, startTestGateway, TEST_ADMIN_TOKEN, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

/** The value of one series in the exposition text, or undefined when it is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics (issue 5)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  const scrape = async () => {
    const response = await call(gateway, 'GET', '/metrics', undefined, admin);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return response.text;
  };

  it('needs the admin token, not an API key', async () => {
    const none = await call(gateway, 'GET', '/metrics', undefined, {});
    expect(none.status).toBe(401);
    expect(none.json.error.code).toBe('invalid_admin_token');
    expect((await call(gateway, 'GET', '/metrics')).status).toBe(401);
  });

  it('counts requests by route pattern, model and status, with latency, upstream time and tokens', async () => {
    const before = await scrape();
    const chat = (body: object) => call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }], ...body });
    const plain = await chat({});
    expect(plain.status).toBe(200);
    const stream = await chat({ stream: true, stream_options: { include_usage: true } });
    expect(stream.text).toContain('[DONE]');
    const usageChunk = stream.text.split('\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6))).find((c) => c.usage);
    expect((await chat({ model: 'no-such-model' })).status).toBe(400);
    expect((await call(gateway, 'GET', '/v1/models/delta-4.1')).status).toBe(200);
    expect((await call(gateway, 'GET', '/no/such/path/12345')).status).toBe(404);

    const text = await scrape();
    const delta = (series: string) => (sample(text, series) ?? 0) - (sample(before, series) ?? 0);
    expect(delta('gateway_requests_total{family="chat-completions",route="/v1/chat/completions",model="delta-4.1",channel="simulator-openai",status="200"}')).toBe(2);
    // A rejected body never sets the model: the label stays empty rather than echoing input.
    expect(delta('gateway_requests_total{family="chat-completions",route="/v1/chat/completions",model="",channel="",status="400"}')).toBe(1);
    expect(delta('gateway_requests_total{family="",route="/v1/models/:model",model="",channel="",status="200"}')).toBe(1);
    expect(delta('gateway_requests_total{family="",route="unmatched",model="",channel="",status="404"}')).toBe(1);
    // Refusals by authentication count too.
    expect((await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [] }, { authorization: 'Bearer sk-gw-nope' })).status).toBe(401);
    expect(sample(await scrape(), 'gateway_requests_total{family="chat-completions",route="/v1/chat/completions",model="",channel="",status="401"}')).toBe(1);
    // Read when scraped: each channel's circuit, the usage writer's backlog, request bytes held.
    expect(sample(text, 'gateway_circuit_state{channel="simulator-openai"}')).toBe(0);
    expect(sample(text, 'gateway_usage_queue_depth')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'gateway_request_log_queue_depth')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'gateway_request_body_bytes_in_flight')).toBeGreaterThanOrEqual(0);
    expect(text).not.toContain('no-such-model');
    expect(text).not.toContain('12345');
    expect(delta('gateway_request_duration_seconds_count{route="/v1/chat/completions",model="delta-4.1"}')).toBe(2);
    expect(delta('gateway_time_to_first_token_seconds_count{route="/v1/chat/completions",model="delta-4.1"}')).toBe(1);
    expect(delta('gateway_upstream_duration_seconds_count{channel="simulator-openai",outcome="2xx"}')).toBe(2);
    const completion = plain.json.usage.completion_tokens + usageChunk.usage.completion_tokens;
    expect(delta('gateway_tokens_total{model="delta-4.1",kind="completion"}')).toBe(completion);
    expect(delta('gateway_tokens_total{model="delta-4.1",kind="prompt"}')).toBe(plain.json.usage.prompt_tokens + usageChunk.usage.prompt_tokens);
    expect(sample(text, 'gateway_active_streams')).toBe(0);
    expect(text).toContain('process_resident_memory_bytes');
  });

  it('shows a stream as active while it runs', async () => {
    const simulator = gateway.deps.simulators.get('simulator-openai')!;
    simulator.setOptions({ tokens_per_second: 40 });
    try {
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'delta-4.1', stream: true, max_tokens: 12, messages: [{ role: 'user', content: 'hi' }] }),
      });
      const reader = response.body!.getReader();
      await reader.read();
      expect(sample(await scrape(), 'gateway_active_streams')).toBe(1);
      while (!(await reader.read()).done);
      await new Promise((r) => setTimeout(r, 20));
      expect(sample(await scrape(), 'gateway_active_streams')).toBe(0);
    } finally {
      simulator.setOptions({});
    }
  });
});

describe('rate-limit rejections metric', () => {
  it("counts the gateway's own 429s by code, not the upstream's", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'metrics-test-'));
    const db = await connectSqlite(dataDir);
    await ensureAdminToken(db, 'admin-token', () => undefined);
    const app = Fastify();
    app.decorate('gateway', { db, channels: [], channelControl: { all: [] }, requestLog: { queued: 0 }, upstream: new UpstreamClient(), usage: new UsageRecorder(db), circuits: new CircuitBreakers({ threshold: 3, coolDownMs: 1000 }) } as unknown as GatewayDeps);
    app.decorate('bodyBudget', { bytesInFlight: 0 });
    app.decorateRequest('gw', null as never);
    registerMetrics(app);
    const refuse = (code: 'GW_RATE_LIMITED' | 'GW_UPSTREAM_RATE_LIMITED') => async () => {
      throw new GatewayError(code, 'slow down');
    };
    app.get('/limited', { onRequest: refuse('GW_RATE_LIMITED') }, async () => 'unreachable');
    app.get('/upstream-limited', refuse('GW_UPSTREAM_RATE_LIMITED'));
    try {
      await app.inject({ url: '/limited' });
      await app.inject({ url: '/limited' });
      await app.inject({ url: '/upstream-limited' });
      const scraped = await app.inject({ url: '/metrics', headers: { authorization: 'Bearer admin-token' } });
      expect(scraped.statusCode).toBe(200);
      expect(sample(scraped.body, 'gateway_rate_limit_rejections_total{code="GW_RATE_LIMITED"}')).toBe(2);
      expect(scraped.body).not.toContain('code="GW_UPSTREAM_RATE_LIMITED"');
    } finally {
      await app.close();
      await db.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
