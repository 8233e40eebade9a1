import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkBillingConfig, costOf } from '../../src/usage/prices.js';
import { parseTimestamp } from '../../src/api/management/key-input.js';
import { connectDatabase } from '../../src/db/connect.js';
import { createTestDatabase } from '../helpers/services.js';
import { VideoTaskRepo } from '../../src/tasks/task-repo.js';

describe('costOf', () => {
  const prices = { 'delta-4.1': { prompt_per_1m: 2, completion_per_1m: 8 }, 'gamma-3.1-flash-image': { per_image: 0.04, prompt_per_1m: 0.3 }, 'zeta-1.0-r2v': { per_video_second: 0.1 } };
  const none = { promptTokens: 0, completionTokens: 0, images: 0, videoSeconds: 0 };
  it('prices tokens per million, images each and video per second', () => {
    expect(costOf(prices, 'delta-4.1', { ...none, promptTokens: 1_000, completionTokens: 500 })).toBeCloseTo(0.006, 12);
    expect(costOf(prices, 'gamma-3.1-flash-image', { ...none, promptTokens: 10, images: 2 })).toBeCloseTo(0.080003, 12);
    expect(costOf(prices, 'zeta-1.0-r2v', { ...none, videoSeconds: 5 })).toBeCloseTo(0.5, 12);
  });
  it('charges nothing for unpriced models or without a price table', () => {
    expect(costOf(prices, 'epsilon-4.7', { ...none, promptTokens: 1e6 })).toBe(0);
    expect(costOf(undefined, 'delta-4.1', { ...none, promptTokens: 1e6 })).toBe(0);
  });
  it('stops the boot on a price or tier for a model the catalog does not have', () => {
    expect(() => checkBillingConfig({ prices: { 'delta-4': {} } })).toThrow(/prices\.delta-4/);
    expect(() => checkBillingConfig({ tiers: { free: { 'beta-seed-2.0': { rpm: 1 } } } })).toThrow(/tiers\.free\.beta-seed-2\.0/);
    expect(() => checkBillingConfig({ tiers: { free: { default: { rpm: 1 }, 'delta-4.1': { tpm: 5 } } }, prices: { 'delta-4.1': {} } })).not.toThrow();
  });
});

describe('parseTimestamp', () => {
  it('reads ISO-8601 (UTC when no zone is given) and Unix seconds', () => {
    expect(parseTimestamp('2026-01-02T03:04:05Z', 'f')).toBe(Date.UTC(2026, 0, 2, 3, 4, 5));
    expect(parseTimestamp('2026-01-02T03:04:05', 'f')).toBe(Date.UTC(2026, 0, 2, 3, 4, 5));
    expect(parseTimestamp('2026-01-02T03:04:05+02:00', 'f')).toBe(Date.UTC(2026, 0, 2, 1, 4, 5));
    expect(parseTimestamp('2026-01-02', 'f')).toBe(Date.UTC(2026, 0, 2));
    expect(parseTimestamp(1_700_000_000, 'f')).toBe(1_700_000_000_000);
    expect(parseTimestamp('1700000000', 'f')).toBe(1_700_000_000_000);
  });
  it('refuses anything else with a 400 naming the field', () => {
    for (const bad of ['tomorrow', '2026-13-45T00:00:00Z', '01/02/2026']) {
      expect(() => parseTimestamp(bad, 'expires_at')).toThrow(/'expires_at' must be an ISO-8601/);
    }
  });
});

describe('video task charge claim (SQLite, or PostgreSQL with GATEWAY_TEST_DATABASE=postgres)', () => {
  it('lets exactly one of many concurrent claims through, and none for a task not completed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-charge-'));
    const postgres = process.env.GATEWAY_TEST_DATABASE === 'postgres' ? await createTestDatabase() : undefined;
    const db = await connectDatabase({ databaseUrl: postgres?.url, dataDir: dir });
    try {
      const repo = new VideoTaskRepo(db);
      const base = { keyId: 'key_1', surface: 'video-generations' as const, capability: null, model: 'zeta-1.0-r2v', channel: 'c', upstreamId: 'u', progress: 0, request: {}, externalId: null, now: 1, nextPollAt: 1 };
      await repo.insert({ ...base, id: 'done', status: 'completed' });
      await repo.insert({ ...base, id: 'failed', status: 'failed' });
      const claims = await Promise.all(Array.from({ length: 8 }, () => repo.markCharged('done')));
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await repo.markCharged('done')).toBe(false);
      expect(await repo.markCharged('failed')).toBe(false);
    } finally {
      await db.destroy();
      await postgres?.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
