import { registerHooks } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTracingConfig } from '../../src/config/load.js';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';

/** Every OpenTelemetry module this process resolves from here on. */
const resolved: string[] = [];
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier.includes('@opentelemetry/') || specifier.includes('telemetry/otel-tracing')) resolved.push(specifier);
    return nextResolve(specifier, context);
  },
});

describe('OpenTelemetry traces are off by default (issue 15)', () => {
  it('are on only with an OTLP endpoint, and OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none turns them off', () => {
    expect(loadTracingConfig({})).toBeUndefined();
    expect(loadTracingConfig({ OTEL_SERVICE_NAME: 'x' })).toBeUndefined();
    expect(loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
      serviceName: undefined,
      sampler: { ratio: 1, parentBased: true },
      exportDelayMs: 5_000,
    });
    expect(loadTracingConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces', OTEL_SERVICE_NAME: 'edge', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })).toMatchObject({
      serviceName: 'edge',
      sampler: { ratio: 0.25, parentBased: true },
    });
    expect(() => loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toThrow(/OTEL_TRACES_SAMPLER/);
    // gRPC would fail silently at every export: refused at start-up, naming the variable.
    expect(() => loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL=grpc/);
    expect(() => loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' })).toThrow(/TRACES_PROTOCOL/);
    expect(loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' })).toBeDefined();
  });

  describe.each([
    ['unset', () => ({})],
    ['set, with OTEL_SDK_DISABLED=true', (receiverUrl: string) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl, OTEL_SDK_DISABLED: 'true' })],
  ])('with the endpoint %s', (_, envFor) => {
    let receiver: OtlpReceiver;
    let gateway: TestGateway;

    beforeAll(async () => {
      receiver = await startOtlpReceiver();
      const env: Record<string, string> = envFor(receiver.url);
      Object.assign(process.env, env);
      gateway = await startTestGateway({
        env: { tracing: loadTracingConfig(process.env) },
        file: { channels: [{ name: 'primary', vendor: 'openai', models: { 'delta-4.1': 'gpt-4.1' } }] },
      });
    });
    afterAll(async () => {
      await gateway.stop();
      await receiver.close();
      delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
      delete process.env.OTEL_SDK_DISABLED;
    });

    it('sends no spans, no traceparent upstream (not even a caller\'s), and never loads the SDK', async () => {
      const body = { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] };
      expect((await call(gateway, 'POST', '/v1/chat/completions', body)).status).toBe(200);
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      expect((await call(gateway, 'POST', '/v1/chat/completions', body, { authorization: `Bearer ${TEST_KEY}`, traceparent })).status).toBe(200);
      expect(gateway.deps.tracing).toBeUndefined();
      const upstream = gateway.deps.simulators.get('primary')!.requests.slice(-2);
      expect(upstream.map((r) => r.headers.traceparent)).toEqual([undefined, undefined]);
      await new Promise((r) => setTimeout(r, 100));
      expect(receiver.posts).toBe(0);
      expect(resolved).toEqual([]);
    });
  });
});
