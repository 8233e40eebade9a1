import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/plugins/metrics.js';

/** The metrics as prom-client defined them before issue 5: the exposition scrapers rely on. */
function buildPromClientMetrics() {
  const registry = new Registry();
  const registers = [registry];
  return {
    registry,
    requests: new Counter({ name: 'gateway_requests_total', help: 'Requests by endpoint family, route pattern, model, channel and HTTP status (401 and 429 included)', labelNames: ['family', 'route', 'model', 'channel', 'status'], registers }),
    cost: new Counter({ name: 'gateway_cost_usd_total', help: 'Cost in USD from the price table, by model (video: when a task completes)', labelNames: ['model'], registers }),
    duration: new Histogram({ name: 'gateway_request_duration_seconds', help: 'Time from request to the end of the response (streams: to the last event)', labelNames: ['route', 'model'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300], registers }),
    ttft: new Histogram({ name: 'gateway_time_to_first_token_seconds', help: 'Streams: time from request to the first event written to the client', labelNames: ['route', 'model'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30], registers }),
    upstream: new Histogram({ name: 'gateway_upstream_duration_seconds', help: 'Per upstream attempt: time from sending to the response headers', labelNames: ['channel', 'outcome'], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60], registers }),
    tokens: new Counter({ name: 'gateway_tokens_total', help: 'Tokens by model and kind (prompt, completion)', labelNames: ['model', 'kind'], registers }),
    activeStreams: new Gauge({ name: 'gateway_active_streams', help: 'Streaming requests in flight', registers }),
    rejections: new Counter({ name: 'gateway_rate_limit_rejections_total', help: "Requests refused by the gateway's own per-key limits", labelNames: ['code'], registers }),
    toolCalls: new Counter({ name: 'gateway_mcp_tool_calls_total', help: 'MCP tools/call requests by server, tool (as the upstream names it) and outcome (success, tool_error, denied, rate_limited, error)', labelNames: ['server', 'tool', 'outcome'], registers }),
    toolCallDuration: new Histogram({ name: 'gateway_mcp_tool_call_duration_seconds', help: 'MCP tools/call: time from the request to the answer, by server and outcome', labelNames: ['server', 'outcome'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300], registers }),
  };
}

const NAMES = [
  'gateway_requests_total',
  'gateway_cost_usd_total',
  'gateway_request_duration_seconds',
  'gateway_time_to_first_token_seconds',
  'gateway_upstream_duration_seconds',
  'gateway_tokens_total',
  'gateway_active_streams',
  'gateway_rate_limit_rejections_total',
  'gateway_mcp_tool_calls_total',
  'gateway_mcp_tool_call_duration_seconds',
];

describe('createMetrics exposition (issue 5)', () => {
  it('prints the gateway metrics exactly as the prom-client definitions did', async () => {
    const before = buildPromClientMetrics();
    const metrics = createMetrics();
    const requests: [route: string, model: string, status: number, seconds: number, ttft?: number][] = [
      ['/v1/chat/completions', 'delta-4.1', 200, 0.42, 0.08],
      ['/v1/chat/completions', 'delta-4.1', 200, 3.1],
      ['/v1/chat/completions', '', 400, 0.002],
      ['unmatched', '', 404, 0.001],
      ['/v1/chat/completions', 'other', 200, 400, 31],
    ];
    for (const [route, model, status, seconds, ttft] of requests) {
      const family = route === 'unmatched' ? '' : 'chat-completions';
      const channel = status === 200 ? 'simulator-openai' : '';
      before.requests.inc({ family, route, model, channel, status });
      metrics.requests.series(family, route, model, channel, status).inc();
      before.duration.observe({ route, model }, seconds);
      metrics.duration.series(route, model).observe(seconds);
      if (ttft !== undefined) {
        before.ttft.observe({ route, model }, ttft);
        metrics.ttft.series(route, model).observe(ttft);
      }
    }
    for (const [channel, outcome, seconds] of [['simulator-openai', '2xx', 0.3], ['simulator-openai', 'error', 0.0004], ['backup', '5xx', 61]] as const) {
      before.upstream.observe({ channel, outcome }, seconds);
      metrics.upstream.series(channel, outcome).observe(seconds);
    }
    before.tokens.inc({ model: 'delta-4.1', kind: 'prompt' }, 12);
    before.tokens.inc({ model: 'delta-4.1', kind: 'completion' }, 30);
    before.tokens.inc({ model: 'delta-4.1', kind: 'prompt' }, 5);
    metrics.tokens.series('delta-4.1', 'prompt').inc(12);
    metrics.tokens.series('delta-4.1', 'completion').inc(30);
    metrics.tokens.series('delta-4.1', 'prompt').inc(5);
    before.activeStreams.inc();
    metrics.activeStreams.inc();
    before.rejections.inc({ code: 'GW_RATE_LIMITED' });
    metrics.rejections.series('GW_RATE_LIMITED').inc();
    before.cost.inc({ model: 'delta-4.1' }, 0.25);
    metrics.cost.series('delta-4.1').inc(0.25);
    before.toolCalls.inc({ server: 'docs', tool: 'echo', outcome: 'success' });
    metrics.toolCalls.series('docs', 'echo', 'success').inc();
    before.toolCallDuration.observe({ server: 'docs', outcome: 'success' }, 0.03);
    metrics.toolCallDuration.series('docs', 'success').observe(0.03);

    const registry = await metrics.registry();
    for (const name of NAMES) {
      expect(await registry.getSingleMetricAsString(name)).toBe(await before.registry.getSingleMetricAsString(name));
    }
    const text = await registry.metrics();
    expect(text).toContain('gateway_requests_total{family="chat-completions",route="/v1/chat/completions",model="delta-4.1",channel="simulator-openai",status="200"} 2\n');
    expect(text).toContain('gateway_request_duration_seconds_bucket{le="+Inf",route="/v1/chat/completions",model="other"} 1\n');
    expect(text).toContain('gateway_request_duration_seconds_bucket{le="300",route="/v1/chat/completions",model="other"} 0\n');
    expect(text).toContain('gateway_tokens_total{model="delta-4.1",kind="prompt"} 17\n');
    // Blocks in the old order, after the process metrics, which stay on the same registry.
    const types = text.split('\n').filter((line) => line.startsWith('# TYPE '));
    expect(types.filter((line) => line.startsWith('# TYPE gateway_')).map((line) => line.split(' ')[2])).toEqual(NAMES);
    expect(types[0]).toMatch(/^# TYPE process_/);
    expect(text).toContain('\nprocess_resident_memory_bytes ');
  });
});
