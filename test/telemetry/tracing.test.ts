import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadTracingConfig } from '../../src/config/load.js';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

/** OpenTelemetry traces with the GenAI conventions, exported to an in-process OTLP receiver (issue 15). */
describe('OpenTelemetry traces (issue 15)', () => {
  let receiver: OtlpReceiver;
  let gateway: TestGateway;
  const primary = () => gateway.deps.simulators.get('primary')!;
  const backup = () => gateway.deps.simulators.get('backup')!;
  const portOf = (name: string) => Number(new URL(gateway.deps.channels.find((c) => c.name === name)!.baseUrl).port);
  const chat = (extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'hello there' }], ...extra }, { authorization: `Bearer ${TEST_KEY}`, ...headers });

  /** The server span of the request answered with `requestId`, and its client spans in start order. */
  const traceOf = (requestId: string | null, clientSpans: number) =>
    receiver.waitFor((spans) => {
      const server = spans.find((s) => s.kind === SERVER && s.attributes['gateway.request.id'] === requestId);
      if (!server) return undefined;
      const clients = spans.filter((s) => s.kind === CLIENT && s.traceId === server.traceId);
      return clients.length >= clientSpans ? { server, clients: clients.sort((a, b) => attemptOrder(a) - attemptOrder(b)) } : undefined;
    });
  const attemptOrder = (span: ReceivedSpan) => (span.attributes['gateway.channel'] === 'primary' ? 0 : 10) + Number(span.attributes['gateway.attempt']);
  const traceparentOf = (headers: Record<string, string>) => TRACEPARENT.exec(headers.traceparent ?? '');

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    // The exporter reads the endpoint itself, as in production; the gateway's config says tracing is on.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    const tracing = loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'gateway-under-test', OTEL_BSP_SCHEDULE_DELAY: '20' });
    gateway = await startTestGateway({
      env: { tracing },
      file: {
        routing: { retry_base_delay_ms: 5, retry_max_delay_ms: 20, circuit_threshold: 50 },
        channels: [
          { name: 'primary', vendor: 'openai', models: { 'delta-4.1': 'gpt-4.1' }, priority: 0, max_retries: 1 },
          { name: 'backup', vendor: 'openai', models: { 'delta-4.1': 'gpt-4.1-backup' }, priority: 1, max_retries: 0 },
        ],
      },
    });
  });
  afterEach(() => {
    primary().setOptions({});
    backup().setOptions({});
  });
  afterAll(async () => {
    await gateway.stop();
    await receiver.close();
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  });

  it('a server span per request and a client span per attempt: a retry gets its own span, all in one trace', async () => {
    primary().setOptions({ fault_status: 503, fault_times: 1 });
    const sent = primary().requests.length;
    const response = await chat({ max_tokens: 50, temperature: 0.5, top_p: 0.9 });
    expect(response.status).toBe(200);
    const { server, clients } = await traceOf(response.headers.get('x-request-id'), 2);

    expect(server.name).toBe('chat delta-4.1');
    expect(server.parentSpanId).toBeUndefined();
    expect(server.statusCode).not.toBe(ERROR);
    expect(server.resource['service.name']).toBe('gateway-under-test');
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/chat/completions',
      'url.path': '/v1/chat/completions',
      'http.response.status_code': 200,
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'delta-4.1',
      'gen_ai.response.model': 'delta-4.1',
      'gen_ai.request.max_tokens': 50,
      'gen_ai.request.temperature': 0.5,
      'gen_ai.request.top_p': 0.9,
      'gen_ai.usage.input_tokens': response.json.usage.prompt_tokens,
      'gen_ai.usage.output_tokens': response.json.usage.completion_tokens,
      'gateway.channel': 'primary',
      'gateway.retries': 1,
    });
    expect(response.json.usage.completion_tokens).toBeGreaterThan(0);
    expect(server.attributes['error.type']).toBeUndefined();
    // The key's id, never its secret.
    expect(typeof server.attributes['gateway.key.id']).toBe('string');
    expect(JSON.stringify(receiver.spans)).not.toContain(TEST_KEY);

    expect(clients).toHaveLength(2);
    for (const client of clients) {
      expect(client.traceId).toBe(server.traceId);
      expect(client.parentSpanId).toBe(server.spanId);
      expect(client.name).toBe('chat gpt-4.1');
      expect(client.attributes).toMatchObject({
        'gen_ai.provider.name': 'openai',
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4.1',
        'server.address': '127.0.0.1',
        'server.port': portOf('primary'),
        'gateway.channel': 'primary',
      });
    }
    const [failed, retried] = clients as [ReceivedSpan, ReceivedSpan];
    expect(failed.attributes).toMatchObject({ 'gateway.attempt': 1, 'http.response.status_code': 503, 'error.type': 'GW_UPSTREAM_UNAVAILABLE' });
    expect(failed.statusCode).toBe(ERROR);
    expect(retried.attributes).toMatchObject({
      'gateway.attempt': 2,
      'http.response.status_code': 200,
      'gen_ai.usage.input_tokens': response.json.usage.prompt_tokens,
      'gen_ai.usage.output_tokens': response.json.usage.completion_tokens,
    });
    expect(retried.attributes['error.type']).toBeUndefined();
    expect(retried.statusCode).not.toBe(ERROR);

    // Each upstream request carried its own attempt's span as its parent, in the same trace.
    const upstream = primary().requests.slice(sent).map((r) => traceparentOf(r.headers));
    expect(upstream).toHaveLength(2);
    expect(upstream.map((m) => m?.[1])).toEqual([server.traceId, server.traceId]);
    expect(upstream.map((m) => m?.[2])).toEqual([failed.spanId, retried.spanId]);
  });

  it('a fallback to the next channel is a client span of its own, with that channel and its upstream model', async () => {
    primary().setOptions({ fault_status: 401 });
    const response = await chat();
    expect(response.status).toBe(200);
    const { server, clients } = await traceOf(response.headers.get('x-request-id'), 2);
    expect(server.attributes).toMatchObject({ 'gateway.channel': 'backup', 'gateway.fallbacks': 1, 'http.response.status_code': 200 });
    expect(clients.map((c) => [c.attributes['gateway.channel'], c.attributes['gateway.attempt'], c.attributes['http.response.status_code']])).toEqual([
      ['primary', 1, 401],
      ['backup', 1, 200],
    ]);
    expect(clients[1]!.attributes).toMatchObject({ 'gen_ai.request.model': 'gpt-4.1-backup', 'server.port': portOf('backup') });
    expect(clients[1]!.name).toBe('chat gpt-4.1-backup');
    expect(traceparentOf(backup().requests.at(-1)!.headers)?.[2]).toBe(clients[1]!.spanId);
  });

  it("an incoming traceparent makes the server span its child, and the upstream call stays in the caller's trace", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    const response = await chat({}, { traceparent: `00-${traceId}-${parentId}-01` });
    expect(response.status).toBe(200);
    const { server, clients } = await traceOf(response.headers.get('x-request-id'), 1);
    expect(server.traceId).toBe(traceId);
    expect(server.parentSpanId).toBe(parentId);
    expect(clients[0]!.traceId).toBe(traceId);
    expect(traceparentOf(primary().requests.at(-1)!.headers)?.slice(1)).toEqual([traceId, clients[0]!.spanId]);
  });

  it('a stream records its tokens when it ends, on the server span and on its attempt', async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'delta-4.1', messages: [{ role: 'user', content: 'tell me a story' }], stream: true, stream_options: { include_usage: true }, max_tokens: 40 }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    const usage = text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)))
      .find((chunk) => chunk.usage)?.usage;
    expect(usage.completion_tokens).toBeGreaterThan(0);
    const { server, clients } = await traceOf(response.headers.get('x-request-id'), 1);
    expect(server.attributes).toMatchObject({
      'gen_ai.request.stream': true,
      'gen_ai.request.max_tokens': 40,
      'gen_ai.usage.input_tokens': usage.prompt_tokens,
      'gen_ai.usage.output_tokens': usage.completion_tokens,
      'http.response.status_code': 200,
    });
    expect(clients[0]!.attributes).toMatchObject({ 'gen_ai.usage.output_tokens': usage.completion_tokens, 'http.response.status_code': 200 });
  });

  it('a 5xx marks the server span as an error with its error.type; a 4xx carries error.type only', async () => {
    primary().setOptions({ fault_status: 500 });
    backup().setOptions({ fault_status: 500 });
    const failed = await chat();
    expect(failed.status).toBeGreaterThanOrEqual(500);
    const { server, clients } = await traceOf(failed.headers.get('x-request-id'), 3);
    expect(server.statusCode).toBe(ERROR);
    expect(server.attributes['http.response.status_code']).toBe(failed.status);
    expect(server.attributes['error.type']).toMatch(/^GW_UPSTREAM_/);
    expect(clients.every((c) => c.statusCode === ERROR)).toBe(true);

    const refused = await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [] }, { authorization: 'Bearer sk-gw-not-a-key' });
    expect(refused.status).toBe(401);
    const { server: unauthorised } = await traceOf(refused.headers.get('x-request-id'), 0);
    expect(unauthorised.statusCode).not.toBe(ERROR);
    expect(unauthorised.name).toBe('POST /v1/chat/completions');
    expect(unauthorised.attributes['http.response.status_code']).toBe(401);
    expect(unauthorised.attributes['error.type']).toMatch(/^GW_AUTH/);
    expect(unauthorised.attributes['gateway.key.id']).toBeUndefined();
  });

  it('a video task submission gets a client span too, with the vendor as gen_ai.provider.name', async () => {
    const created = await call(gateway, 'POST', '/v1/video/generations', { model: 'zeta-1.0-r2v', prompt: 'A cat opens a fan', images: ['https://example.com/ref-1.png'] });
    expect(created.status).toBe(200);
    const { server, clients } = await traceOf(created.headers.get('x-request-id'), 1);
    expect(server.name).toBe('video_generation zeta-1.0-r2v');
    expect(clients[0]!.attributes).toMatchObject({ 'gen_ai.operation.name': 'video_generation', 'gen_ai.provider.name': 'alibaba-dashscope', 'gateway.attempt': 1, 'http.response.status_code': 200 });
    const sent = gateway.deps.simulators.get('simulator-alibaba-dashscope')!.requests.find((r) => r.method === 'POST')!;
    expect(traceparentOf(sent.headers)?.[2]).toBe(clients[0]!.spanId);
  });

  it('probes and scrapes are not traced', async () => {
    const health = await call(gateway, 'GET', '/healthz');
    await call(gateway, 'GET', '/metrics');
    const marker = await chat();
    await traceOf(marker.headers.get('x-request-id'), 1);
    await gateway.deps.tracing!.forceFlush();
    expect(receiver.spans.filter((s) => ['/healthz', '/metrics'].includes(String(s.attributes['url.path'])))).toEqual([]);
    expect(health.status).toBe(200);
  });
});
