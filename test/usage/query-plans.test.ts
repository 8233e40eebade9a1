import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompiledQuery } from 'kysely';
import { listRequests, type RequestLogFilter } from '../../src/requests/request-log-query.js';
import { usageReport, type ReportGroupBy, type UsageFilter } from '../../src/usage/usage-report.js';
import { keyActivity, monthStartUtc } from '../../src/api/management/key-views.js';
import { keySpentUsd } from '../../src/usage/key-spend.js';
import { sqliteHandleOf } from '../../src/db/connect.js';
import { DAY_MS, openTestStore, planOf, seedVolume, type TestStore, type Volume } from '../helpers/usage-volume.js';

/**
 * Issue 22: every filter the console offers reads an index in the order the page wants and stops
 * at the page's end, and every report reads rollups (and events only by time, for the parts of an
 * hour at a range's ends), on both stores, checked with EXPLAIN on a seeded volume. Two traps are
 * named: SQLite reading a busy key's rows then sorting them, PostgreSQL walking the whole table
 * newest-first for a quiet key.
 */
const EVENTS = 120_000;
const DAYS = 30;

/** SQLite as it ships (no statistics) and after an ANALYZE (an operator may run one); PostgreSQL as autovacuum leaves it (analyzed). */
describe.each([
  ['sqlite', false],
  ['sqlite', true],
  ['postgres', true],
] as const)(`query plans on %s (statistics: %s) with ${EVENTS} events`, (kind, analyzed) => {
  let store: TestStore;
  let volume: Volume;
  const now = Date.now();
  const cutoff = now - 31 * DAY_MS;
  beforeAll(async () => {
    store = await openTestStore(kind);
    volume = await seedVolume(store, { events: EVENTS, days: DAYS, now });
    if (kind === 'sqlite' && analyzed) sqliteHandleOf(store.db)!.exec('ANALYZE');
  }, 180_000);
  afterAll(() => store?.close());

  /** Runs `fn` on a recording handle and returns each query it ran with its plan. */
  async function plansOf(fn: (db: TestStore['db']) => Promise<unknown>): Promise<Array<{ query: CompiledQuery; plan: string[] }>> {
    const { db, queries } = store.recording();
    await fn(db);
    return Promise.all(queries.map(async (query) => ({ query, plan: await planOf(store, query) })));
  }

  /**
   * No plan reads a raw table whole: no table scan, and no sort of everything a filter matched.
   * Sorts of bounded sets are fine: a page's rows by id, a user's key ids, the merged first pages
   * of a user's keys, the few events of one request id (`sortable`).
   */
  function expectNoFullReads(plans: Array<{ query: CompiledQuery; plan: string[] }>, sortable = false): void {
    for (const { query, plan } of plans) {
      const text = plan.join('\n');
      if (kind === 'sqlite') {
        expect(text, query.sql).not.toMatch(/^SCAN (e|d|usage_events|request_details|r|usage_rollups)$/m);
        const bounded = sortable || /"e"\."id" in \(|from "api_keys"|union all/.test(query.sql);
        if (!bounded) expect(text, query.sql).not.toMatch(/USE TEMP B-TREE FOR ORDER BY/);
      } else {
        expect(text, query.sql).not.toMatch(/Seq Scan on (usage_events|request_details|usage_rollups)/);
      }
    }
  }

  const indexUsed = (plans: Array<{ plan: string[] }>, index: string) => {
    const pattern = kind === 'sqlite' ? new RegExp(`INDEX (${index})\\b`) : new RegExp(`(using|Bitmap Index Scan on) (${index})\\b`);
    return plans.some(({ plan }) => plan.some((line) => pattern.test(line)));
  };

  /**
   * Each filter's index. A busy key or user may instead be found by walking the time index
   * newest first (its rows are dense there: PostgreSQL's planner picks that when it is cheaper);
   * a quiet one never.
   */
  const logCases: Array<[string, (v: Volume) => Partial<RequestLogFilter>, string]> = [
    ['no filter (newest first)', () => ({}), 'usage_events_time'],
    ['the busiest key', (v) => ({ keyId: v.busyKey }), 'usage_events_key_time|usage_events_time'],
    ['a quiet key', (v) => ({ keyId: v.quietKey }), 'usage_events_key_time'],
    ['a quiet user', (v) => ({ ownerId: v.quietUser }), 'usage_events_key_time'],
    ['the busiest user', (v) => ({ ownerId: v.busyUser }), 'usage_events_key_time|usage_events_time'],
    ['a rare model', (v) => ({ model: v.rareModel }), 'usage_events_model_time'],
    ['a quiet channel', (v) => ({ channel: v.quietChannel }), 'usage_events_channel_time'],
    ['status=error', () => ({ status: 'error' }), 'usage_events_errors'],
    ['status=429', () => ({ status: '429' }), 'usage_events_errors'],
    ['status=5xx', () => ({ status: '5xx' }), 'usage_events_errors'],
    ['an error code', () => ({ errorCode: 'invalid_request_error' }), 'usage_events_error_code'],
    ['a request id', (v) => ({ requestId: v.requestId }), 'usage_events_request'],
    ['one day ten days ago', () => ({ from: now - 10 * DAY_MS, to: now - 9 * DAY_MS }), 'usage_events_time'],
  ];

  it.each(logCases)('the request log filtered by %s walks its index in order', async (_name, filterOf, index) => {
    const filter = { ...filterOf(volume), limit: 50 };
    const plans = await plansOf((db) => listRequests(db, filter, cutoff));
    expect(indexUsed(plans, index), plans.map((p) => p.plan.join('\n')).join('\n---\n')).toBe(true);
    expectNoFullReads(plans, index === 'usage_events_request');
  });

  it('the next page of the busiest key and of a quiet user keeps the same index walks', async () => {
    for (const filter of [{ keyId: volume.busyKey }, { ownerId: volume.quietUser }]) {
      const first = await listRequests(store.db, { ...filter, limit: 5 }, cutoff);
      expect(first.nextBefore).not.toBeNull();
      const plans = await plansOf((db) => listRequests(db, { ...filter, limit: 5, before: first.nextBefore! }, cutoff));
      expect(indexUsed(plans, 'usage_events_key_time|usage_events_time')).toBe(true);
      expectNoFullReads(plans);
    }
  });

  const reportCases: Array<[string, (v: Volume) => UsageFilter, ReportGroupBy | undefined]> = [
    ['30 days by key', () => ({ from: now - 30 * DAY_MS }), 'key'],
    ['30 days by user', () => ({ from: now - 30 * DAY_MS }), 'user'],
    ['30 days by model', () => ({ from: now - 30 * DAY_MS }), 'model'],
    ['30 days by hour', () => ({ from: now - 30 * DAY_MS }), 'hour'],
    ['7 days by day, a user’s keys', (v) => ({ from: now - 7 * DAY_MS, ownerId: v.busyUser }), 'day'],
    ['30 days of the busiest key by model', (v) => ({ from: now - 30 * DAY_MS, to: now - DAY_MS / 3, keyId: v.busyKey }), 'model'],
    ['all time, ungrouped', () => ({}), undefined],
  ];

  it.each(reportCases)('the usage report %s reads rollups, and events only by time', async (_name, filterOf, groupBy) => {
    const plans = await plansOf((db) => usageReport(db, filterOf(volume), groupBy));
    expect(indexUsed(plans, kind === 'sqlite' ? 'sqlite_autoindex_usage_rollups_1' : 'usage_rollups_pk') || indexUsed(plans, 'usage_rollups_key')).toBe(true);
    // Events are only searched by a time range (the parts of an hour at the ends), never walked whole.
    if (kind === 'sqlite') for (const { plan } of plans) expect(plan.join('\n')).not.toMatch(/^SCAN e\b/m);
    expectNoFullReads(plans);
  });

  it('the keys list and budgets read a key’s daily rollups by the key index', async () => {
    const plans = await plansOf(async (db) => {
      await keyActivity(db, [volume.busyKey, volume.quietKey], monthStartUtc(now));
      await keySpentUsd(db, volume.busyKey);
    });
    expect(indexUsed(plans, 'usage_rollups_key')).toBe(true);
    expectNoFullReads(plans);
  });
});
