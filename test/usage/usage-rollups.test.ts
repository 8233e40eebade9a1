import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { UsageRecorder, type UsageEvent } from '../../src/usage/usage-recorder.js';
import { PERIOD_MS, rebuildRollups, ROLLUP_MEASURES } from '../../src/db/usage-rollups.js';
import type { UsageRollupTable } from '../../src/db/schema.js';
import { openTestStore, type TestStore } from '../helpers/usage-volume.js';

const GRAINS = { all: [], key: ['key'], model: ['model'], channel: ['channel'], full: ['key', 'model', 'channel'] } as const;
const START = Date.UTC(2026, 10, 20, 22, 30);

/** Events over three days around midnight: several keys, models and channels, every outcome, null keys and channels. */
function events(count: number, prefix: string, seed = 1): UsageEvent[] {
  let s = seed;
  const next = () => (s = (s * 48271) % 2147483647) / 2147483647;
  return Array.from({ length: count }, (_, i) => {
    const outcome = ['success', 'success', 'success', 'error', 'stream_error', 'client_disconnect', 'video_completed'][Math.floor(next() * 7)]!;
    return {
      request_id: `${prefix}-${i}`,
      key_id: next() < 0.1 ? null : `key_${Math.floor(next() * 4)}`,
      model: ['m-a', 'm-b', 'm-c', ''][Math.floor(next() * 4)]!,
      channel: next() < 0.1 ? null : `ch-${Math.floor(next() * 3)}`,
      family: 'chat-completions',
      status: outcome === 'error' ? 429 : 200,
      outcome,
      prompt_tokens: Math.floor(next() * 1000),
      completion_tokens: Math.floor(next() * 500),
      reasoning_tokens: Math.floor(next() * 50),
      images: Math.floor(next() * 2),
      video_seconds: Math.round(next() * 100) / 10,
      cost_usd: Math.round(next() * 1e6) / 1e9,
      latency_ms: Math.floor(next() * 3000),
      ttft_ms: next() < 0.5 ? null : Math.floor(next() * 400),
      created_at: START + Math.floor(next() * 3 * PERIOD_MS.day),
    };
  });
}

/** What the rollups must hold, computed here from the stored events. */
function expectedRollups(rows: Array<Record<string, unknown>>): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  for (const e of rows) {
    for (const period of ['hour', 'day'] as const) {
      for (const [grain, keeps] of Object.entries(GRAINS)) {
        const bucket = Number(e.created_at) - (Number(e.created_at) % PERIOD_MS[period]);
        const dims = [keeps.includes('key' as never) ? (e.key_id ?? '') : '', keeps.includes('model' as never) ? e.model : '', keeps.includes('channel' as never) ? (e.channel ?? '') : ''];
        const id = [period, grain, bucket, ...dims, e.outcome].join('|');
        const row = out.get(id) ?? { events: 0, prompt_tokens: 0, completion_tokens: 0, reasoning_tokens: 0, images: 0, video_seconds: 0, cost_usd: 0, latency_ms: 0, ttft_ms: 0, ttft_events: 0, first_at: Infinity, last_at: 0 };
        row.events! += 1;
        for (const column of ['prompt_tokens', 'completion_tokens', 'reasoning_tokens', 'images', 'video_seconds', 'cost_usd', 'latency_ms'] as const) row[column]! += Number(e[column]);
        row.ttft_ms! += Number(e.ttft_ms ?? 0);
        row.ttft_events! += e.ttft_ms === null ? 0 : 1;
        row.first_at = Math.min(row.first_at!, Number(e.created_at));
        row.last_at = Math.max(row.last_at!, Number(e.created_at));
        out.set(id, row);
      }
    }
  }
  return out;
}

describe.each(['sqlite', 'postgres'] as const)('usage rollups on %s (issue 22)', (kind) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore(kind);
  });
  afterAll(() => store?.close());

  async function rollups(): Promise<Map<string, UsageRollupTable>> {
    const rows = await store.db.selectFrom('usage_rollups').selectAll().execute();
    return new Map(rows.map((r) => [[r.period, r.grain, r.bucket, r.key_id, r.model, r.channel, r.outcome].join('|'), r]));
  }

  async function expectRollupsOfStoredEvents(): Promise<void> {
    const stored = await store.db.selectFrom('usage_events').selectAll().execute();
    const expected = expectedRollups(stored as never);
    const actual = await rollups();
    expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [id, want] of expected) {
      const got = actual.get(id)!;
      for (const [column, value] of Object.entries(want)) {
        if (column === 'cost_usd' || column === 'video_seconds') expect(Number(got[column as keyof UsageRollupTable]), `${id} ${column}`).toBeCloseTo(value, 9);
        else expect(Number(got[column as keyof UsageRollupTable]), `${id} ${column}`).toBe(value);
      }
    }
  }

  it('rolls up every batch the recorder writes, by hour and day, in every grain, with the batch', async () => {
    const recorder = new UsageRecorder(store.db, { batchSize: 7, intervalMs: 60_000 });
    for (const event of events(150, 'first')) recorder.record(event);
    await recorder.close();
    expect(await store.db.selectFrom('usage_events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).toEqual({ n: 150 });
    await expectRollupsOfStoredEvents();
  });

  it('a replayed journal (stored events, new ones, a request id twice) counts each stored event once', async () => {
    const recorder = new UsageRecorder(store.db, { intervalMs: 60_000 });
    const again = events(150, 'first').slice(0, 40);
    const fresh = events(30, 'replayed', 7);
    const stored = await recorder.replay([...again, ...fresh, { ...fresh[0]!, cost_usd: 1 }]);
    await recorder.close();
    expect(stored).toBe(30);
    // A second replay of the same journal (a crash during the first) stores nothing more.
    expect(await new UsageRecorder(store.db, { intervalMs: 60_000 }).replay([...again, ...fresh])).toBe(0);
    await expectRollupsOfStoredEvents();
  });

  it('rebuilding from the events gives exactly what the writes built (migration 0018 backfills this way)', async () => {
    const built = [...(await rollups()).keys()].sort();
    await rebuildRollups(store.db);
    expect([...(await rollups()).keys()].sort()).toEqual(built);
    // Sums of the same figures in another order: equal up to floating-point rounding.
    await expectRollupsOfStoredEvents();
  });

  it.runIf(kind === 'postgres')('an INSERT by anything, an older gateway during a rolling upgrade included, is rolled up by the trigger', async () => {
    await store.db.insertInto('usage_events').values(events(20, 'plain-insert', 11)).execute();
    await expectRollupsOfStoredEvents();
  });

  it.runIf(kind === 'postgres')('the trigger rolls up every figure the rollups have (a migration adding one installs it again)', async () => {
    const { rows } = await sql<{ prosrc: string }>`select prosrc from pg_proc where proname = 'usage_rollups_add'`.execute(store.db);
    for (const measure of ROLLUP_MEASURES) expect(rows[0]!.prosrc).toContain(measure.column);
  });

  it.runIf(kind === 'postgres')('writers on several connections adding to the same rollup rows at once neither deadlock nor lose a count', async () => {
    const writers = [1, 2, 3].map(() => new UsageRecorder(store.db, { intervalMs: 60_000 }));
    const batches = Array.from({ length: 24 }, (_, i) => events(25, `concurrent-${i}`, 100 + i).map((e) => ({ ...e, created_at: START + (e.created_at % PERIOD_MS.hour) })));
    await Promise.all(batches.map((batch, i) => writers[i % 3]!.write(batch)));
    await Promise.all(writers.map((w) => w.close()));
    await expectRollupsOfStoredEvents();
  });
});
