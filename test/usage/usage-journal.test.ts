import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startGatewayProcess } from '../helpers/instance-process.js';
import { startTestGateway, TEST_KEY } from '../helpers/gateway.js';

/**
 * Issue 13 item 11: `kill -9` under load must not lose billed usage. Every answered request's
 * event is journaled before it waits for its batch; the next start stores what the database lacks.
 */
describe('usage journal', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-journal-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('a gateway killed with SIGKILL under load loses no answered request from the ledger', async () => {
    const first = await startGatewayProcess({ name: 'doomed', dataDir, databaseUrl: '', file: {} });
    const body = JSON.stringify({ model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] });
    let answered = 0;
    let sent = 0;
    let stop = false;
    const worker = async () => {
      while (!stop) {
        sent += 1;
        try {
          const response = await fetch(`${first.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' }, body });
          await response.text();
          if (response.status === 200) answered += 1;
        } catch {
          return; // the process is gone
        }
      }
    };
    const workers = Array.from({ length: 16 }, worker);
    // Killed as soon as 30 requests were answered, mid-load and well inside the recorder's
    // 1-second batch: most answered events are only in memory and the journal.
    const deadline = Date.now() + 20_000;
    while (answered < 30 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    await first.kill();
    stop = true;
    await Promise.all(workers);
    expect(answered).toBeGreaterThanOrEqual(30);
    expect(readdirSync(join(dataDir, 'usage-journal')).length).toBe(1);

    const second = await startTestGateway({ dataDir });
    try {
      const rows = await second.deps.db.selectFrom('usage_events').select(['request_id', 'status']).where('family', '=', 'chat-completions').execute();
      // Every answered request is in the ledger (requests cut by the kill may be too, as client disconnects)...
      expect(rows.filter((row) => row.status === 200).length).toBeGreaterThanOrEqual(answered);
      // ...nothing twice, nothing invented.
      expect(new Set(rows.map((row) => row.request_id)).size).toBe(rows.length);
      expect(rows.length).toBeLessThanOrEqual(sent);
      // The dead instance's journal is gone once stored; only the new instance's own remains.
      expect(readdirSync(join(dataDir, 'usage-journal')).filter((name) => name.includes(`-${first.pid}-`))).toEqual([]);
    } finally {
      await second.stop({ keepData: true });
    }
  });

  it('replays after a crash on the gateway\'s own id: ten answered requests that reused one x-request-id are ten rows (issue 23 item 10)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-journal-ids-'));
    try {
      const doomed = await startGatewayProcess({ name: 'doomed-ids', dataDir: dir, databaseUrl: '', file: {} });
      const body = JSON.stringify({ model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] });
      const answers = await Promise.all(
        Array.from({ length: 10 }, () =>
          fetch(`${doomed.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json', 'x-request-id': 'reused-id' }, body }).then((r) => r.status),
        ),
      );
      // Killed inside the recorder's one-second batch: the events are in the journal only.
      await doomed.kill();
      expect(answers).toEqual(Array(10).fill(200));
      const second = await startTestGateway({ dataDir: dir });
      try {
        const rows = await second.deps.db.selectFrom('usage_events').select('request_id').where('request_id', '=', 'reused-id').execute();
        expect(rows).toHaveLength(10);
        const ids = await second.deps.db.selectFrom('usage_events').select('entry_id').where('request_id', '=', 'reused-id').execute();
        expect(new Set(ids.map((row) => row.entry_id)).size).toBe(10);
      } finally {
        await second.stop({ keepData: true });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
