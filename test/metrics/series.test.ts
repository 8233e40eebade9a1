import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { LabelledCounter, LabelledHistogram, UnlabelledGauge } from '../../src/metrics/series.js';

const BUCKETS = [0.01, 0.1, 1];

/** prom-client's own metrics and ours, fed the same updates, must print the same text. */
function buildPair() {
  const promRegistry = new Registry();
  const registers = [promRegistry];
  const prom = {
    requests: new Counter({ name: 'requests_total', help: 'Requests by route and status', labelNames: ['route', 'status'], registers }),
    latency: new Histogram({ name: 'latency_seconds', help: 'Latency "quoted" \\ help', labelNames: ['route', 'model'], buckets: BUCKETS, registers }),
    active: new Gauge({ name: 'active', help: 'In flight', registers }),
    codes: new Counter({ name: 'codes_total', help: 'By code', labelNames: ['code'], registers }),
  };
  const registry = new Registry();
  const ours = {
    requests: new LabelledCounter<[route: string, status: number]>({ name: 'requests_total', help: 'Requests by route and status', labelNames: ['route', 'status'], registry }),
    latency: new LabelledHistogram<[route: string, model: string]>({ name: 'latency_seconds', help: 'Latency "quoted" \\ help', labelNames: ['route', 'model'], buckets: BUCKETS, registry }),
    active: new UnlabelledGauge({ name: 'active', help: 'In flight', registry }),
    codes: new LabelledCounter<[code: string]>({ name: 'codes_total', help: 'By code', labelNames: ['code'], registry }),
  };
  return { promRegistry, prom, registry, ours };
}

describe('allocation-free metric series (issue 5)', () => {
  it('prints exactly what prom-client prints for the same updates', async () => {
    const { promRegistry, prom, registry, ours } = buildPair();
    const updates: [route: string, model: string, status: number, seconds: number][] = [
      ['/v1/chat', 'a', 200, 0.004],
      ['/v1/models/:model', 'b', 404, 0.5],
      ['/v1/chat', 'other', 200, 0.01],
      ['/v1/chat', 'a', 500, 7],
      ['/v1/chat', 'a', 200, 0.3],
      // Escaping is the Registry's: both sides must hand it the raw value.
      ['/x"y\\z\nw', '', 429, 0.1],
    ];
    for (const [route, model, status, seconds] of updates) {
      prom.requests.inc({ route, status });
      ours.requests.series(route, status).inc();
      prom.latency.observe({ route, model }, seconds);
      ours.latency.series(route, model).observe(seconds);
    }
    prom.codes.inc({ code: 'GW_RATE_LIMITED' }, 3);
    ours.codes.series('GW_RATE_LIMITED').inc(3);
    prom.active.inc();
    prom.active.inc();
    prom.active.dec();
    ours.active.inc();
    ours.active.inc();
    ours.active.dec();

    const text = await registry.metrics();
    expect(text).toBe(await promRegistry.metrics());
    // The JSON (cluster aggregation reads it) matches too, bar prom-client's empty exemplar slots.
    const withoutExemplars = (json: unknown) => JSON.parse(JSON.stringify(json, (key, value: unknown) => (key === 'exemplar' ? undefined : value)));
    expect(await registry.getMetricsAsJSON()).toEqual(withoutExemplars(await promRegistry.getMetricsAsJSON()));
  });

  it('prints cumulative buckets with le first, +Inf, sum and count per label combination', async () => {
    const { registry, ours } = buildPair();
    const chat = ours.latency.series('/v1/chat', 'a');
    for (const seconds of [0.005, 0.01, 0.05, 0.5, 2]) chat.observe(seconds);
    ours.latency.series('/v1/chat', 'b').observe(0.2);

    const lines = (await registry.getSingleMetricAsString('latency_seconds')).split('\n');
    expect(lines).toEqual([
      '# HELP latency_seconds Latency "quoted" \\\\ help',
      '# TYPE latency_seconds histogram',
      'latency_seconds_bucket{le="0.01",route="/v1/chat",model="a"} 2',
      'latency_seconds_bucket{le="0.1",route="/v1/chat",model="a"} 3',
      'latency_seconds_bucket{le="1",route="/v1/chat",model="a"} 4',
      'latency_seconds_bucket{le="+Inf",route="/v1/chat",model="a"} 5',
      'latency_seconds_sum{route="/v1/chat",model="a"} 2.565',
      'latency_seconds_count{route="/v1/chat",model="a"} 5',
      'latency_seconds_bucket{le="0.01",route="/v1/chat",model="b"} 0',
      'latency_seconds_bucket{le="0.1",route="/v1/chat",model="b"} 0',
      'latency_seconds_bucket{le="1",route="/v1/chat",model="b"} 1',
      'latency_seconds_bucket{le="+Inf",route="/v1/chat",model="b"} 1',
      'latency_seconds_sum{route="/v1/chat",model="b"} 0.2',
      'latency_seconds_count{route="/v1/chat",model="b"} 1',
    ]);
  });

  it('keeps one series per label combination, in first-use order, with numbers printed as text', async () => {
    const { registry, ours } = buildPair();
    const ok = ours.requests.series('/a', 200);
    for (let i = 0; i < 7; i++) ok.inc();
    ours.requests.series('/b', 200).inc();
    // Same first label as the first series: nested maps would group it there; the text must not.
    ours.requests.series('/a', 404).inc(2);
    expect(ours.requests.series('/a', 200)).toBe(ok);

    expect(await registry.getSingleMetricAsString('requests_total')).toBe(
      [
        '# HELP requests_total Requests by route and status',
        '# TYPE requests_total counter',
        'requests_total{route="/a",status="200"} 7',
        'requests_total{route="/b",status="200"} 1',
        'requests_total{route="/a",status="404"} 2',
      ].join('\n'),
    );
  });

  it('prints an unlabelled gauge at 0 before any update and nothing for unused labelled metrics', async () => {
    const { registry } = buildPair();
    expect(await registry.getSingleMetricAsString('active')).toBe('# HELP active In flight\n# TYPE active gauge\nactive 0');
    expect(await registry.getSingleMetricAsString('codes_total')).toBe('# HELP codes_total By code\n# TYPE codes_total counter');
  });

  it('refuses updates that would corrupt a series, like prom-client', () => {
    const { ours } = buildPair();
    const series = ours.requests.series('/a', 200);
    expect(() => series.inc(-1)).toThrow('It is not possible to decrease a counter');
    expect(() => series.inc(Number.NaN)).toThrow(TypeError);
    expect(() => ours.latency.series('/a', 'm').observe(Number.POSITIVE_INFINITY)).toThrow(TypeError);
    expect(series.value).toBe(0);
  });

  it('zeroes series on reset and keeps handles live', async () => {
    const { registry, ours } = buildPair();
    const series = ours.latency.series('/a', 'm');
    series.observe(0.05);
    registry.resetMetrics();
    series.observe(2);
    const text = await registry.getSingleMetricAsString('latency_seconds');
    expect(text).toContain('latency_seconds_bucket{le="0.1",route="/a",model="m"} 0');
    expect(text).toContain('latency_seconds_count{route="/a",model="m"} 1');
  });
});
