import { afterEach, describe, expect, it } from 'vitest';
import { createOtelTracing } from '../../src/telemetry/otel-tracing.js';

const SAVED = { ...process.env };

/** A collector that is down must not lose every span without a word (issue 15). */
describe('trace export failures', () => {
  afterEach(() => {
    process.env = { ...SAVED };
  });

  it('are reported, at most once a minute, when the collector does not take a batch', async () => {
    // Nothing listens on port 9 (discard) on the loopback: every export is refused.
    process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = 'http://127.0.0.1:9/v1/traces';
    process.env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT = '1000';
    const reported: Error[] = [];
    const tracing = createOtelTracing({ serviceName: 'export-test', sampler: { ratio: 1, parentBased: true }, exportDelayMs: 60_000 }, (error) => reported.push(error));
    for (let batch = 0; batch < 2; batch++) {
      tracing.startRequest({}, { name: `GET /x${batch}`, attributes: {} }).end({ attributes: {}, isError: false });
      // A flush of a refused batch rejects too; what matters here is what the gateway is told.
      await tracing.forceFlush().catch(() => undefined);
    }
    expect(reported).toHaveLength(1);
    expect(reported[0]).toBeInstanceOf(Error);
    await tracing.shutdown().catch(() => undefined);
  }, 30_000);
});
