import { describe, expect, it } from 'vitest';
import { routeModel } from '../../src/gateway/route-model.js';
import { parseRetryAfter, retryDelayMs, DEFAULT_RETRY_POLICY } from '../../src/gateway/retry-policy.js';
import { CircuitBreakers } from '../../src/gateway/circuit-breaker.js';
import type { Channel } from '../../src/gateway/channel.js';

const channel = (name: string, priority: number, weight: number, models = { m: 'up' }): Channel =>
  ({ name, priority, weight, models }) as unknown as Channel;

describe('route selection (issue 3)', () => {
  it('orders by priority group, then by weight inside a group', () => {
    const channels = [channel('b1', 1, 1), channel('a1', 0, 1), channel('a2', 0, 3), channel('other', 0, 1, { x: 'y' } as never)];
    // random 0 picks the first remaining by weight order; 0.99 the last.
    expect(routeModel(channels, 'm', () => 0).map((c) => c.name)).toEqual(['a1', 'a2', 'b1']);
    expect(routeModel(channels, 'm', () => 0.99).map((c) => c.name)).toEqual(['a2', 'a1', 'b1']);
    expect(routeModel(channels, 'missing')).toEqual([]);
  });

  it('spreads load by weight', () => {
    const channels = [channel('light', 0, 1), channel('heavy', 0, 3)];
    let seed = 1;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const first = new Map<string, number>();
    for (let i = 0; i < 4000; i++) {
      const name = routeModel(channels, 'm', random)[0]!.name;
      first.set(name, (first.get(name) ?? 0) + 1);
    }
    expect(first.get('heavy')! / 4000).toBeGreaterThan(0.7);
    expect(first.get('heavy')! / 4000).toBeLessThan(0.8);
  });

  it('backs off exponentially with jitter, honours Retry-After, gives up past the max wait', () => {
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, undefined, () => 1)).toBe(200);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 3, undefined, () => 1)).toBe(800);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 10, undefined, () => 1)).toBe(5000);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, undefined, () => 0.5)).toBe(100);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, 3, () => 0.5)).toBe(3000);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, 60, () => 0.5)).toBeUndefined();
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThanOrEqual(4);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });

  it('a circuit opens at the threshold, lets one probe through after the cool-down', () => {
    let now = 0;
    const circuits = new CircuitBreakers({ threshold: 2, coolDownMs: 100 }, () => now);
    circuits.onFailure('c');
    expect(circuits.tryAcquire('c')).toBe(true);
    circuits.onFailure('c');
    expect(circuits.isOpen('c')).toBe(true);
    expect(circuits.tryAcquire('c')).toBe(false);
    now = 150;
    expect(circuits.tryAcquire('c')).toBe(true); // the probe
    expect(circuits.tryAcquire('c')).toBe(false); // only one
    circuits.onFailure('c');
    expect(circuits.isOpen('c')).toBe(true);
    now = 300;
    expect(circuits.tryAcquire('c')).toBe(true);
    circuits.onSuccess('c');
    expect(circuits.isOpen('c')).toBe(false);
  });
});
