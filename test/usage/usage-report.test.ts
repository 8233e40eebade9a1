import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportSpans } from '../../src/usage/report-spans.js';
import { usageReport, type ReportGroupBy, type UsageFilter } from '../../src/usage/usage-report.js';
import { UsageRecorder, type UsageEvent } from '../../src/usage/usage-recorder.js';
import { openTestStore, type TestStore } from '../helpers/usage-volume.js';

const H = 3_600_000;
const D = 86_400_000;
const T0 = Date.UTC(2026, 10, 20);

describe('report spans: where each part of a range is read from (issue 22)', () => {
  it('whole days from days, whole hours from hours, parts of an hour from the events', () => {
    expect(reportSpans(T0 + 5 * H + 17_000, T0 + 2 * D + 3 * H + 5, false, 0)).toEqual([
      { source: 'events', from: T0 + 5 * H + 17_000, to: T0 + 6 * H },
      { source: 'hour', from: T0 + 6 * H, to: T0 + D },
      { source: 'day', from: T0 + D, to: T0 + 2 * D },
      { source: 'hour', from: T0 + 2 * D, to: T0 + 2 * D + 3 * H },
      { source: 'events', from: T0 + 2 * D + 3 * H, to: T0 + 2 * D + 3 * H + 5 },
    ]);
  });

  it('open ends read every day before or after; a report by hour reads no days', () => {
    expect(reportSpans(undefined, undefined, false, 0)).toEqual([{ source: 'day', from: undefined, to: undefined }]);
    expect(reportSpans(T0 + 90_000, undefined, false, 0)).toEqual([
      { source: 'events', from: T0 + 90_000, to: T0 + H },
      { source: 'hour', from: T0 + H, to: T0 + D },
      { source: 'day', from: T0 + D, to: undefined },
    ]);
    expect(reportSpans(T0 + 90_000, T0 + 3 * D, true, 0)).toEqual([
      { source: 'events', from: T0 + 90_000, to: T0 + H },
      { source: 'hour', from: T0 + H, to: T0 + 3 * D },
    ]);
  });

  it('a range inside one hour is read from the events only; an empty range reads nothing', () => {
    expect(reportSpans(T0 + 1000, T0 + 2000, false, 0)).toEqual([{ source: 'events', from: T0 + 1000, to: T0 + 2000 }]);
    expect(reportSpans(T0 + 5000, T0 + 5000, false, 0)).toEqual([]);
  });

  it('an end older than the events kept (retention) moves to the start of its hour', () => {
    const rawFrom = T0 + 10 * D;
    expect(reportSpans(T0 + 5 * H + 1, T0 + 5 * H + 2, false, rawFrom)).toEqual([]);
    expect(reportSpans(T0 + 5 * H + 1, T0 + 7 * H + 30_000, false, rawFrom)).toEqual([{ source: 'hour', from: T0 + 5 * H, to: T0 + 7 * H }]);
    // The end inside the kept window stays exact.
    expect(reportSpans(T0 + 5 * H + 1, rawFrom + 30_000, true, rawFrom)).toEqual([
      { source: 'hour', from: T0 + 5 * H, to: rawFrom },
      { source: 'events', from: rawFrom, to: rawFrom + 30_000 },
    ]);
  });
});

/** The report as the events say it should be, computed here. */
function fromEvents(events: UsageEvent[], owners: Map<string, string>, filter: UsageFilter, groupBy: ReportGroupBy | undefined) {
  const groups = new Map<string, { requests: number; total_tokens: number; cost_usd: number; by_outcome: Record<string, number> }>();
  const totals = { requests: 0, total_tokens: 0, cost_usd: 0, by_outcome: {} as Record<string, number> };
  for (const e of events) {
    if (filter.from !== undefined && e.created_at < filter.from) continue;
    if (filter.to !== undefined && e.created_at >= filter.to) continue;
    if (filter.keyId !== undefined && e.key_id !== filter.keyId) continue;
    if (filter.model !== undefined && e.model !== filter.model) continue;
    if (filter.channel !== undefined && e.channel !== filter.channel) continue;
    if (filter.ownerId !== undefined && (e.key_id == null || owners.get(e.key_id) !== filter.ownerId)) continue;
    const name =
      groupBy === 'day' ? new Date(e.created_at).toISOString().slice(0, 10)
      : groupBy === 'hour' ? new Date(e.created_at).toISOString().slice(0, 13) + ':00Z'
      : groupBy === 'key' ? (e.key_id ?? '')
      : groupBy === 'user' ? (e.key_id ? (owners.get(e.key_id) ?? '') : '')
      : groupBy === 'model' ? e.model
      : groupBy === 'channel' ? (e.channel ?? '')
      : 'all';
    const group = groups.get(name) ?? { requests: 0, total_tokens: 0, cost_usd: 0, by_outcome: {} };
    groups.set(name, group);
    for (const t of [totals, group]) {
      if (e.outcome !== 'video_completed') t.requests++;
      t.total_tokens += Number(e.prompt_tokens) + Number(e.completion_tokens);
      t.cost_usd += Number(e.cost_usd);
      t.by_outcome[e.outcome] = (t.by_outcome[e.outcome] ?? 0) + 1;
    }
  }
  return { totals, groups };
}

describe.each(['sqlite', 'postgres'] as const)('reports from rollups equal reports from the events (%s, issue 22)', (kind) => {
  let store: TestStore;
  let events: UsageEvent[];
  const owners = new Map([['key_0', 'usr_a'], ['key_1', 'usr_a'], ['key_2', 'usr_b']]);
  let s = 5;
  const random = () => (s = (s * 48271) % 2147483647) / 2147483647;
  beforeAll(async () => {
    store = await openTestStore(kind);
    await store.db.insertInto('users').values(['usr_a', 'usr_b'].map((id) => ({ id, email: `${id}@x.example`, name: id, role: 'user' as const, created_at: T0 }))).execute();
    await store.db.insertInto('api_keys').values([...owners].map(([id, owner], i) => ({ id, name: id, prefix: `p${i}`, secret_hash: `h${i}`, owner, created_at: T0 }))).execute();
    events = Array.from({ length: 600 }, (_, i) => ({
      request_id: `r${i}`, key_id: random() < 0.1 ? null : `key_${Math.floor(random() * 3)}`, model: ['m-a', 'm-b', 'm-c'][Math.floor(random() * 3)]!,
      channel: random() < 0.1 ? null : ['ch-x', 'ch-y'][Math.floor(random() * 2)]!, family: 'chat-completions', status: 200,
      outcome: ['success', 'success', 'error', 'video_completed'][Math.floor(random() * 4)]!, prompt_tokens: Math.floor(random() * 100), completion_tokens: Math.floor(random() * 100),
      reasoning_tokens: 0, images: 0, video_seconds: 0, cost_usd: Math.floor(random() * 1000) / 1e6, latency_ms: 10, ttft_ms: null,
      created_at: T0 + Math.floor(random() * 4 * D),
    }));
    const recorder = new UsageRecorder(store.db, { batchSize: 50, intervalMs: 60_000 });
    for (const event of events) recorder.record(event);
    await recorder.close();
  });
  afterAll(() => store?.close());

  it('for 80 random ranges (to the millisecond), filters and groupings', async () => {
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
    for (let i = 0; i < 80; i++) {
      const a = T0 - H + Math.floor(random() * 5 * D);
      const b = a + Math.floor(random() * 3 * D);
      const filter: UsageFilter = {
        from: random() < 0.2 ? undefined : random() < 0.3 ? a - (a % H) : a,
        to: random() < 0.2 ? undefined : random() < 0.3 ? b - (b % D) : b,
        keyId: random() < 0.2 ? pick(['key_0', 'key_2']) : undefined,
        model: random() < 0.2 ? pick(['m-a', 'm-c']) : undefined,
        channel: random() < 0.15 ? 'ch-y' : undefined,
        ownerId: random() < 0.15 ? pick(['usr_a', 'usr_b']) : undefined,
      };
      const groupBy = pick([undefined, 'hour', 'day', 'model', 'key', 'channel', 'user'] as const);
      const got = await usageReport(store.db, filter, groupBy);
      const want = fromEvents(events, owners, filter, groupBy);
      const label = JSON.stringify({ filter, groupBy });
      expect(got.totals.requests, label).toBe(want.totals.requests);
      expect(got.totals.total_tokens, label).toBe(want.totals.total_tokens);
      expect(got.totals.cost_usd, label).toBeCloseTo(want.totals.cost_usd, 9);
      expect(got.totals.by_outcome, label).toEqual(want.totals.by_outcome);
      if (groupBy === undefined) continue;
      expect(got.groups.map((g) => g.group), label).toEqual([...want.groups.keys()].sort());
      for (const group of got.groups) {
        const expected = want.groups.get(group.group)!;
        expect([group.requests, group.total_tokens, group.by_outcome], `${label} ${group.group}`).toEqual([expected.requests, expected.total_tokens, expected.by_outcome]);
      }
    }
  });

  it('with the events before a day gone (retention), an end before it counts by the hour and the figures stay', async () => {
    const rawFrom = T0 + 2 * D;
    const from = T0 + 5 * H + 1_234;
    const got = await usageReport(store.db, { from }, 'day', rawFrom);
    const want = fromEvents(events, owners, { from: T0 + 5 * H }, 'day');
    expect(got.totals.requests).toBe(want.totals.requests);
    expect(got.groups.map((g) => [g.group, g.requests])).toEqual([...want.groups].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, g]) => [name, g.requests]));
  });
});
