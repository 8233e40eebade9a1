import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { admin } from '../../helpers/admin.js';
import { chat, startRequestLogWorld, type RequestLogWorld } from '../../helpers/request-log-world.js';
import { consoleCall } from '../../helpers/console.js';

/** A CSV's rows as objects by its header (no quoted commas in what these tests write). */
function parseCsv(text: string): Array<Record<string, string>> {
  const [head, ...lines] = text.trimEnd().split('\r\n');
  const names = head!.split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((value, i) => [names[i], value])));
}

describe('request log: attempts, the model a refused request asked for, CSV export (issue 22)', () => {
  let gateway: TestGateway;
  let ann: RequestLogWorld['ann'];
  let annKey: RequestLogWorld['annKey'];
  beforeAll(async () => {
    ({ gateway, ann, annKey } = await startRequestLogWorld());
  });
  afterAll(() => gateway.stop());

  it("lists each upstream attempt in the drawer: the failed try's status and error, then the one that answered; key holders without channel names", async () => {
    const retried = await chat(gateway, annKey.key, {}, { 'x-request-id': 'retried-once' });
    expect(retried.status, retried.text).toBe(200);
    const answered = await chat(gateway, annKey.key, {}, { 'x-request-id': 'first-try' });
    expect(answered.status).toBe(200);

    const [entry] = (await admin(gateway, 'GET', '/requests?request_id=retried-once')).json.data;
    const detail = await admin(gateway, 'GET', `/requests/${entry.id}`);
    expect(detail.status, detail.text).toBe(200);
    expect(detail.json.attempts).toEqual([
      // The operator also reads what the vendor said (issue 35).
      { channel: 'flaky-openai', status: 503, latency_ms: expect.any(Number), error_code: expect.any(String), error_message: expect.any(String), vendor_message: 'Simulated upstream failure' },
      { channel: 'flaky-openai', status: 200, latency_ms: expect.any(Number), error_code: null, error_message: null, vendor_message: null },
    ]);

    // A first try that answered is one attempt, told by the entry itself.
    const [single] = (await admin(gateway, 'GET', '/requests?request_id=first-try')).json.data;
    expect((await admin(gateway, 'GET', `/requests/${single.id}`)).json.attempts).toEqual([{ channel: 'flaky-openai', status: 200, latency_ms: single.latency_ms, error_code: null, error_message: null, vendor_message: null }]);

    const own = await consoleCall(gateway, 'GET', `/console/api/requests/${entry.id}`, undefined, { session: ann.session });
    expect(own.json.attempts.map((a: { channel: unknown; status: number; vendor_message: unknown }) => [a.channel, a.status, a.vendor_message])).toEqual([
      [null, 503, null],
      [null, 200, null],
    ]);
  });

  it('keeps the model the client asked for on a 400, and lists no attempt for a request no upstream saw', async () => {
    const invalid = await chat(gateway, TEST_KEY, { model: 'delta-4.1', temperature: 9 }, { 'x-request-id': 'bad-temperature' });
    expect(invalid.status).toBe(400);
    const unknown = await chat(gateway, TEST_KEY, { model: 'no-such-model' }, { 'x-request-id': 'unknown-model' });
    expect(unknown.status).toBeGreaterThanOrEqual(400);

    const [bad] = (await admin(gateway, 'GET', '/requests?request_id=bad-temperature')).json.data;
    expect(bad).toMatchObject({ status: 400, model: 'delta-4.1', error_code: invalid.json.error.code });
    expect((await admin(gateway, 'GET', `/requests/${bad.id}`)).json.attempts).toEqual([]);
    const [missing] = (await admin(gateway, 'GET', '/requests?request_id=unknown-model')).json.data;
    // A name the gateway does not know stays out of the usage rows (issue 34: no rollup rows per
    // junk name); the log entry's message still says what was asked.
    expect(missing).toMatchObject({ model: null, status: unknown.status });
    expect(missing.error_message).toContain('[model asked: no-such-model]');
  });

  it('exports the filtered requests as CSV with names, not ids: the key, the owner email and, for operators, the channel', async () => {
    const csv = await admin(gateway, 'GET', `/requests.csv?user=${ann.id}`);
    expect(csv.status, csv.text).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toContain('requests.csv');
    const rows = parseCsv(csv.text);
    expect(rows.map((r) => r.request_id).sort()).toEqual(['first-try', 'retried-once']);
    expect(rows[0]).toMatchObject({ key: 'ann-key', user: ann.email, channel: 'flaky-openai', model: 'delta-4.1', status: '200', retries: expect.any(String) });
    // Newest first, times to the second and beyond (ISO-8601).
    expect(rows[0]!.request_id).toBe('first-try');
    expect(rows[0]!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    // The list's filters apply: errors only, by error code.
    const errors = parseCsv((await admin(gateway, 'GET', '/requests.csv?status=4xx&error_code=invalid_parameter')).text);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((r) => r.status === '400' && r.error_code === 'invalid_parameter')).toBe(true);

    // A key holder's export holds their requests only, without channels or owners.
    const own = await consoleCall(gateway, 'GET', '/console/api/requests.csv', undefined, { session: ann.session });
    expect(own.status, own.text).toBe(200);
    const ownRows = parseCsv(own.text);
    expect(ownRows.map((r) => r.request_id).sort()).toEqual(['first-try', 'retried-once']);
    expect(ownRows.every((r) => r.channel === '' && r.user === '' && r.key === 'ann-key')).toBe(true);
  });

  it('refuses an export filter it does not know, and a key holder the operator-only filters', async () => {
    expect((await admin(gateway, 'GET', '/requests.csv?status=weird')).status).toBe(400);
    expect((await consoleCall(gateway, 'GET', '/console/api/requests.csv?channel=flaky-openai', undefined, { session: ann.session })).status).toBe(400);
    expect((await call(gateway, 'GET', '/console/api/requests.csv', undefined, {})).status).toBe(401);
  });

  it('lists the export routes in /openapi.json', async () => {
    const paths = Object.keys((await call(gateway, 'GET', '/openapi.json', undefined, {})).json.paths);
    expect(paths).toEqual(expect.arrayContaining(['/admin/api/requests.csv', '/console/api/requests.csv']));
  });
});
