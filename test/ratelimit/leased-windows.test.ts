import { describe, expect, it } from 'vitest';
import { LeaseLedger, leaseCap, type LeaseMessage } from '../../src/ratelimit/lease-primary.js';
import { LeasedWindows } from '../../src/ratelimit/leased-windows.js';
import type { Taken } from '../../src/ratelimit/limiters.js';

/**
 * The primary and N workers in one process, wired as node:cluster wires them: every message
 * crosses asynchronously (a later turn of the event loop), so asks from several workers
 * interleave as they would over IPC. The real processes are in test/cli/workers-limits.test.ts.
 */
function cluster(workers: number) {
  let clock = 1_000_000;
  const now = () => clock;
  const ledger = new LeaseLedger(workers, 60_000, now);
  const asks = { count: 0 };
  const nodes: LeasedWindows[] = [];
  for (let i = 0; i < workers; i++) {
    const node: LeasedWindows = new LeasedWindows((message: LeaseMessage) => {
      if (message.gwLease === 'take') asks.count++;
      setImmediate(() => ledger.handle({ send: (reply: unknown) => void setImmediate(() => node.onReply(reply)) } as never, message));
    }, now);
    nodes.push(node);
  }
  return { ledger, nodes, asks, advance: (ms: number) => (clock += ms) };
}

const admitted = (results: Taken[]) => results.filter((r) => r.admitted).length;

describe('leased limit counters across workers (issue 36)', () => {
  it('8 workers never admit more than the limit, and miss at most (workers − 1) × cap of it, asking once per lease', async () => {
    const { nodes, asks } = cluster(8);
    const limit = 1_000;
    const cap = leaseCap(limit, 8);
    // 2,000 requests spread unevenly over the workers, a few at a time, as connections land.
    const results: Taken[] = [];
    for (let round = 0; round < 250; round++) {
      const batch = nodes.flatMap((node, i) => Array.from({ length: 1 + ((round + i) % 2) }, () => node.take('requests', 'k:m', limit, 1)));
      results.push(...(await Promise.all(batch)));
    }
    expect(results.length).toBeGreaterThan(limit);
    expect(admitted(results)).toBeLessThanOrEqual(limit);
    expect(admitted(results)).toBeGreaterThanOrEqual(limit - 7 * cap);
    // The primary was asked for leases, not per request (refusals are repeated locally for a moment).
    expect(asks.count).toBeLessThan(results.length / 5);
  });

  it('a small limit is exact: every point is asked for', async () => {
    const { nodes } = cluster(2);
    expect(leaseCap(5, 2)).toBe(0);
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => nodes[i % 2]!.take('requests', 'k:m', 5, 1)));
    expect(admitted(results)).toBe(5);
    expect(results.filter((r) => !r.admitted).every((r) => r.state.remaining === 0)).toBe(true);
  });

  it('tokens given back past the cap return to the primary, where another worker can take them', async () => {
    const { nodes, ledger, advance } = cluster(2);
    const [a, b] = nodes as [LeasedWindows, LeasedWindows];
    const tpm = 1_000;
    const reserved = await a.take('tokens', 'k:m', tpm, 1_000);
    expect(reserved.admitted).toBe(true);
    expect((await b.take('tokens', 'k:m', tpm, 100)).admitted).toBe(false);
    // The request used 10 of its 1,000: 990 back; the worker keeps at most its cap.
    a.give('tokens', 'k:m', 990, reserved.windowEndsAt);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ledger.get('tokens', 'k:m').consumed).toBe(10 + leaseCap(tpm, 2));
    // B's refusal stands for a moment (REFUSAL_STANDS_MS, 250 ms); after it, B asks again and gets the room.
    expect((await b.take('tokens', 'k:m', tpm, 900)).admitted).toBe(false);
    advance(300);
    expect((await b.take('tokens', 'k:m', tpm, 900)).admitted).toBe(true);
  });

  it('usage beyond a reservation is counted at the primary (never refused), and a new window starts empty', async () => {
    const { nodes, ledger, advance } = cluster(2);
    const [a] = nodes as [LeasedWindows];
    expect((await a.take('tokens', 'k:m', 100, 100)).admitted).toBe(true);
    a.add('tokens', 'k:m', 50);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ledger.get('tokens', 'k:m').consumed).toBe(150);
    expect((await a.state('tokens', 'k:m', 100)).remaining).toBe(0);
    advance(60_001);
    const next = await a.take('tokens', 'k:m', 100, 100);
    expect(next.admitted).toBe(true);
    expect(ledger.get('tokens', 'k:m').consumed).toBe(100);
  });

  it('a limit changed mid-window is asked about at once, not answered from the old lease', async () => {
    const { nodes, ledger } = cluster(1);
    const [a] = nodes as [LeasedWindows];
    expect((await a.take('requests', 'k:m', 1_600, 1)).admitted).toBe(true);
    expect(ledger.get('requests', 'k:m').consumed).toBeGreaterThan(1);
    // Lowered below what is counted (the unused lease counts): refused.
    const lowered = await a.take('requests', 'k:m', 1, 1);
    expect(lowered.admitted).toBe(false);
    expect(lowered.state.limit).toBe(1);
  });
});
