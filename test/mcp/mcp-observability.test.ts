import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadTracingConfig } from '../../src/config/load.js';
import { call, startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { createKey } from '../helpers/admin.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { startFakeMcpUpstream, type FakeMcpUpstream } from '../helpers/mcp-upstream.js';

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

/** Issue 31: each tools/call is a client span in the request's trace, and counted in /metrics. */
describe('MCP tool calls: OpenTelemetry spans and metrics', () => {
  let receiver: OtlpReceiver;
  let gateway: TestGateway;
  let docs: FakeMcpUpstream;
  let client: Client;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    docs = await startFakeMcpUpstream({ name: 'docs' });
    const tracing = loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'gateway-under-test', OTEL_BSP_SCHEDULE_DELAY: '20' });
    gateway = await startTestGateway({ env: { tracing }, file: { mcp_servers: [{ name: 'docs', url: docs.url }] } as never });
    const key = await createKey(gateway, { name: 'mcp', mcp: { docs: ['echo', 'fail'] } });
    const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key.key}` } } });
    client = new Client({ name: 'test-client', version: '1' });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['docs__echo', 'docs__fail']);
  });
  afterAll(async () => {
    await client?.close();
    await gateway?.stop();
    await docs?.close();
    await receiver?.close();
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  });

  it('a tools/call is a client span, child of the request span, and the upstream joins the trace', async () => {
    const seen = docs.seen.length;
    await client.callTool({ name: 'docs__echo', arguments: { text: 'traced' } });
    const { server, tool } = await receiver.waitFor((spans) => {
      const tool = spans.find((s) => s.kind === CLIENT && s.name === 'tools/call docs__echo');
      const server = tool && spans.find((s) => s.kind === SERVER && s.traceId === tool.traceId);
      return tool && server ? { tool, server } : undefined;
    });
    expect(tool.parentSpanId).toBe(server.spanId);
    expect(tool.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'docs__echo', 'gateway.mcp.server': 'docs', 'server.address': '127.0.0.1', 'gateway.outcome': 'success' });
    expect(tool.statusCode).not.toBe(ERROR);
    // The upstream request of the call carries the span's trace context.
    const traceparents = docs.seen.slice(seen).map((h) => h.traceparent).filter(Boolean);
    expect(traceparents.some((t) => String(t).includes(tool.traceId) && String(t).includes(tool.spanId))).toBe(true);
  });

  it('a refused call is a failed span, a tool error is not', async () => {
    await expect(client.callTool({ name: 'docs__whoami', arguments: {} })).rejects.toThrow(/not available/);
    expect((await client.callTool({ name: 'docs__fail', arguments: {} })).isError).toBe(true);
    const spans = await receiver.waitFor((all) => {
      const denied = all.find((s) => s.name === 'tools/call docs__whoami');
      const failed = all.find((s) => s.name === 'tools/call docs__fail');
      return denied && failed ? { denied, failed } : undefined;
    });
    expect(spans.denied.attributes).toMatchObject({ 'error.type': 'permission_denied', 'gateway.outcome': 'denied' });
    expect(spans.denied.statusCode).toBe(ERROR);
    expect(spans.failed.attributes).toMatchObject({ 'error.type': 'tool_error', 'gateway.outcome': 'tool_error' });
    expect(spans.failed.statusCode).not.toBe(ERROR);
  });

  it('metrics count tool calls by server, tool and outcome, with bounded labels', async () => {
    await expect(client.callTool({ name: 'invented__anything', arguments: {} })).rejects.toThrow(/not available/);
    const scraped = await call(gateway, 'GET', '/metrics', undefined, { authorization: `Bearer ${TEST_ADMIN_TOKEN}` });
    expect(scraped.status).toBe(200);
    expect(scraped.text).toMatch(/gateway_mcp_tool_calls_total\{server="docs",tool="echo",outcome="success"\} 1\b/);
    expect(scraped.text).toMatch(/gateway_mcp_tool_calls_total\{server="docs",tool="fail",outcome="tool_error"\} 1\b/);
    expect(scraped.text).toMatch(/gateway_mcp_tool_calls_total\{server="docs",tool="whoami",outcome="denied"\} 1\b/);
    expect(scraped.text).toMatch(/gateway_mcp_tool_calls_total\{server="other",tool="other",outcome="denied"\} 1\b/);
    expect(scraped.text).not.toContain('invented');
    expect(scraped.text).toMatch(/gateway_mcp_tool_call_duration_seconds_count\{server="docs",outcome="success"\} 1\b/);
  });
});
