import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { createKey } from '../helpers/admin.js';
import { startHostileMcpUpstream, type HostileMcpUpstream } from '../helpers/hostile-mcp-upstream.js';

/**
 * Issue 44, "unbounded upstream result": a 300 MB tool result took the gateway's RSS from 439 to
 * 2,034 MB and timed `/healthz` out for every tenant (the SDK read and parsed it whole). Now an
 * answer is counted as it arrives and cut off at the server's bound (GATEWAY_MCP_MAX_RESULT_BYTES,
 * 16 MiB by default), the upstream connection closed.
 *
 * The stall bound is relative, as the rest of the watchdog's: the longest event-loop stall while
 * the 300 MB call runs, against the same tool answering 4 MB (under the bound: read, parsed,
 * masked and forwarded), medians of a few runs each. RSS may grow at most 300 MB over the run.
 */
const HUGE_BYTES = 300 * 1024 * 1024;
const CALIBRATION_BYTES = 4 * 1024 * 1024;
const ROUNDS = 3;
const RATIO = 3;
const RSS_GROWTH_BYTES = 300 * 1024 * 1024;

describe('a 300 MB MCP tool result (issue 44)', () => {
  let gateway: TestGateway;
  let hostile: HostileMcpUpstream;
  let client: Client;
  beforeAll(async () => {
    hostile = await startHostileMcpUpstream();
    gateway = await startTestGateway({ file: { mcp_servers: [{ name: 'hostile', url: hostile.url }] } as never });
    const key = await createKey(gateway, { name: 'huge', mcp: { hostile: ['huge'] } });
    const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key.key}` } } });
    client = new Client({ name: 'watchdog', version: '1' });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client?.close();
    await gateway?.stop();
    await hostile?.close();
  });

  /** The longest event-loop stall (ms) while one call of `bytes` runs, the call's outcome, and /healthz answers meanwhile. */
  const run = async (bytes: number): Promise<{ stallMs: number; ok: boolean; healthz: number[]; peakRss: number }> => {
    hostile.hugeBytes = bytes;
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    let done = false;
    let peakRss = process.memoryUsage.rss();
    const healthz: number[] = [];
    const probing = (async () => {
      while (!done) {
        const answer = await fetch(`${gateway.url}/healthz`, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
        healthz.push(answer?.status ?? 0);
        await answer?.body?.cancel();
        peakRss = Math.max(peakRss, process.memoryUsage.rss());
      }
    })();
    const ok = await client.callTool({ name: 'hostile__huge', arguments: {} }, undefined, { timeout: 120_000 }).then(() => true, () => false);
    done = true;
    await probing;
    delay.disable();
    return { stallMs: delay.max / 1e6, ok, healthz, peakRss };
  };
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

  it('is cut off at the bound: RSS within +300 MB, /healthz answering, stalls like a 4 MB result', async () => {
    // First calls compile and load what a gateway loads once.
    await run(CALIBRATION_BYTES);
    const rssBefore = process.memoryUsage.rss();
    const hugeMs: number[] = [];
    const calibrationMs: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const huge = await run(HUGE_BYTES);
      expect(huge.ok).toBe(false);
      expect(huge.healthz.every((status) => status === 200)).toBe(true);
      expect(huge.peakRss - rssBefore, `RSS grew ${Math.round((huge.peakRss - rssBefore) / 1e6)} MB`).toBeLessThanOrEqual(RSS_GROWTH_BYTES);
      hugeMs.push(huge.stallMs);
      const calibration = await run(CALIBRATION_BYTES);
      expect(calibration.ok).toBe(true);
      calibrationMs.push(calibration.stallMs);
    }
    // The upstream was hung up on long before it wrote 300 MB.
    expect(hostile.huge.filter((call) => call.cutOff).length).toBe(ROUNDS);
    expect(Math.max(...hostile.huge.filter((call) => call.cutOff).map((call) => call.written))).toBeLessThan(HUGE_BYTES / 4);
    const stall = median(hugeMs);
    const calibration = median(calibrationMs);
    expect(stall, `stall ${stall.toFixed(1)} ms against ${calibration.toFixed(1)} ms`).toBeLessThanOrEqual(RATIO * calibration);
  });
});
