#!/usr/bin/env node
// node bench/writer-cost.js [--events 50000] [--rounds 5] [--database postgres://…]
// What each background writer costs per request, in CPU time, measured in this one process so
// other load on the machine does not count: the usage ledger (event built, journaled, queued,
// batch-inserted) against the request log (entry queued, headers masked and serialised,
// batch-inserted). Issue 12: the request log must cost no more than the ledger. Needs `npm run build`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connectDatabase } from '../dist/db/connect.js';
import { UsageRecorder } from '../dist/usage/usage-recorder.js';
import { UsageJournal } from '../dist/usage/usage-journal.js';
import { RequestLog, DEFAULT_REQUEST_LOG } from '../dist/requests/request-log.js';
import { newEntryId } from '../dist/usage/entry-id.js';

const { values: args } = parseArgs({
  options: { events: { type: 'string', default: '50000' }, rounds: { type: 'string', default: '5' }, database: { type: 'string' } },
});
const events = Number(args.events);
const rounds = Number(args.rounds);

/** The headers the openai SDK sends with a chat request. */
const HEADERS = {
  host: '127.0.0.1:8080',
  connection: 'keep-alive',
  accept: 'application/json',
  'content-type': 'application/json',
  'user-agent': 'OpenAI/JS 7.57.0',
  'x-stainless-lang': 'js',
  'x-stainless-package-version': '7.57.0',
  'x-stainless-os': 'Linux',
  'x-stainless-arch': 'x64',
  'x-stainless-runtime': 'node',
  'x-stainless-runtime-version': 'v22.23.3',
  'x-stainless-retry-count': '0',
  'x-stainless-timeout': '600000',
  authorization: 'Bearer sk-gw-0123456789abcdef0123456789abcdef',
  'content-length': '112',
};

const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/** CPU µs per event: on the request path (record) and in the background (flush), for `n` events. */
async function measure(n, record, flush) {
  const start = cpuMicros();
  for (let i = 0; i < n; i++) record(i);
  const recorded = cpuMicros();
  await flush();
  const flushed = cpuMicros();
  return { record: (recorded - start) / n, flush: (flushed - recorded) / n };
}

const dataDir = mkdtempSync(join(tmpdir(), 'writer-cost-'));
const db = await connectDatabase({ databaseUrl: args.database, dataDir });
const usage = new UsageRecorder(db, { journal: new UsageJournal(UsageJournal.folderFor(dataDir)), batchSize: 200, intervalMs: 3_600_000 });
const log = new RequestLog(db, DEFAULT_REQUEST_LOG, { batchSize: 200, intervalMs: 3_600_000 });
const now = Date.now();
const results = { ledger: [], log: [] };
let id = 0;

for (let round = 0; round <= rounds; round++) {
  const ledger = await measure(
    events,
    (i) =>
      usage.record({
        entry_id: newEntryId(now + i), request_id: `req_${id++}`, key_id: 'key_0123456789abcdef', model: 'delta-4.1', channel: 'openai-main', family: 'chat-completions', status: 200,
        outcome: 'success', prompt_tokens: 12, completion_tokens: 40, reasoning_tokens: 0, images: 0, video_seconds: 0, cost_usd: 0.000344,
        latency_ms: 23, ttft_ms: null, created_at: now + i,
      }),
    () => usage.flush(),
  );
  const logged = await measure(
    events,
    (i) =>
      log.record({
        entry_id: newEntryId(now + i), request_id: `req_${id++}`, created_at: now + i, retries: 0, fallbacks: 0, error_code: null, error_message: null,
        headers: HEADERS, request_body: undefined, response_body: undefined,
      }),
    () => log.flush(),
  );
  // Round 0 warms up the JIT and the database file.
  if (round === 0) continue;
  results.ledger.push(ledger);
  results.log.push(logged);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const row = (name, list) => {
  const record = median(list.map((r) => r.record));
  const flush = median(list.map((r) => r.flush));
  return `| ${name} | ${record.toFixed(2)} | ${flush.toFixed(2)} | ${(record + flush).toFixed(2)} |`;
};
console.log(`CPU µs per request, median of ${rounds} rounds of ${events} (${args.database ? 'PostgreSQL' : 'SQLite'})\n`);
console.log('| writer | on the request path | batch write | total |');
console.log('| --- | --- | --- | --- |');
console.log(row('usage ledger (journaled)', results.ledger));
console.log(row('request log (headers kept)', results.log));

await usage.close();
await log.close();
await db.destroy();
rmSync(dataDir, { recursive: true, force: true });
