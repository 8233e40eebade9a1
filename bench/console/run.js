#!/usr/bin/env node
// npm run bench:console [-- --stores sqlite,postgres --rows 1000000 --days 30 --label after --keep --no-build]
// Issue 22: a million logged requests over 30 days (200 keys, 40 users, 20 models, 5 channels,
// 4.5% errors) seeded straight into SQLite and PostgreSQL, then the gateway (node dist/cli.js
// start) is timed on every call the Request log, Usage and Keys pages make (median of 5, one at a
// time), each page's calls together, its start-up, and a chat request's latency while a 30-day
// usage report runs against idle. Results go to bench/results/console-<date>-<label>.{json,md}.
// The figures are wall times on whatever else the machine is doing: compare runs made together.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir, cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { freePort, startProcess } from '../lib/procs.js';
import { makeWorld } from './data.js';
import { seed } from './seed.js';
import { pageCalls, pages } from './calls.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const { values: args } = parseArgs({
  options: {
    stores: { type: 'string', default: 'sqlite,postgres' },
    rows: { type: 'string', default: '1000000' },
    days: { type: 'string', default: '30' },
    label: { type: 'string', default: 'run' },
    keep: { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    postgres: { type: 'string', default: process.env.BENCH_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test' },
  },
});
const rows = Number(args.rows);
const days = Number(args.days);
const ADMIN_TOKEN = 'gwadm-bench-console-admin-token';
const BOOTSTRAP_KEY = 'sk-bench-console-0123456789abcdef0123';
const log = (line) => process.stderr.write(line + '\n');
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const round = (ms) => Math.round(ms * 10) / 10;

if (!args['no-build']) execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });

async function postgresDatabase(serverUrl) {
  const name = 'gw_bench_console';
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async size() {
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      const { rows: [row] } = await client.query('select pg_database_size(current_database()) as bytes');
      await client.end();
      return Number(row.bytes);
    },
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

async function startGateway(dataDir, databaseUrl) {
  const port = await freePort();
  const configPath = join(dataDir, 'bench-console.yaml');
  // The log keeps the whole month, so every one of the million rows is searchable.
  writeFileSync(configPath, 'request_log:\n  retention_days: 31\n');
  const started = performance.now();
  const child = await startProcess('gateway', process.execPath, [join(root, 'dist/cli.js'), 'start'], {
    env: {
      PORT: String(port), HOST: '127.0.0.1', GATEWAY_DATA_DIR: dataDir, GATEWAY_CONFIG: configPath, GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_BOOTSTRAP_KEY: BOOTSTRAP_KEY, LOG_LEVEL: 'warn', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    },
    readyUrl: `http://127.0.0.1:${port}/healthz`,
    timeoutMs: 120_000,
  });
  return { ...child, url: `http://127.0.0.1:${port}`, startMs: performance.now() - started };
}

async function timed(url, headers) {
  const at = performance.now();
  const response = await fetch(url, { headers });
  const body = await response.text();
  return { ms: performance.now() - at, status: response.status, body };
}

async function chat(gateway) {
  const at = performance.now();
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${BOOTSTRAP_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'delta-4.1', messages: [{ role: 'user', content: 'hello' }], max_tokens: 8 }),
  });
  await response.text();
  if (response.status !== 200) throw new Error(`chat answered ${response.status}`);
  return performance.now() - at;
}

/** Chat latency (median of 30 after 5 warm-ups), idle and while 30-day reports run back to back. */
async function chatUnderReport(gateway, operator, from30) {
  for (let i = 0; i < 5; i++) await chat(gateway);
  const idle = [];
  for (let i = 0; i < 30; i++) idle.push(await chat(gateway));
  let running = true;
  let reports = 0;
  const reportUrl = `${gateway.url}/admin/api/usage?from=${encodeURIComponent(from30)}&group_by=key`;
  const loop = (async () => {
    while (running) {
      await timed(reportUrl, operator);
      reports++;
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 50));
  const during = [];
  for (let i = 0; i < 30; i++) {
    during.push(await chat(gateway));
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  running = false;
  await loop;
  return { idle_ms: round(median(idle)), during_report_ms: round(median(during)), during_max_ms: round(Math.max(...during)), reports_run: reports };
}

async function measureStore(kind) {
  log(`\n== ${kind}`);
  const world = makeWorld({ rows, days, now: Date.now() });
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-bench-console-'));
  const database = kind === 'postgres' ? await postgresDatabase(args.postgres) : undefined;
  const store = kind === 'sqlite' ? { kind, dataDir } : { kind, url: database.url };
  const seedStarted = performance.now();
  const { sessions, sample } = await seed(root, store, world, rows, log);
  const seedS = (performance.now() - seedStarted) / 1000;
  const gateway = await startGateway(dataDir, database?.url);
  log(`  gateway up in ${Math.round(gateway.startMs)} ms`);
  const result = { store: kind, seed_s: Math.round(seedS), start_ms: Math.round(gateway.startMs), calls: [], pages: [] };
  try {
    const signIn = await fetch(`${gateway.url}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ admin_token: ADMIN_TOKEN }) });
    const operator = { cookie: signIn.headers.get('set-cookie').split(';')[0] };
    const who = { operator, busyUser: { cookie: sessions.busyUser }, quietUser: { cookie: sessions.quietUser } };
    const now = Date.now();
    const context = { world, sample, from7: new Date(now - 7 * 86_400_000).toISOString(), from30: new Date(now - 30 * 86_400_000).toISOString(), now };
    // The first page of the log gives the cursors the "next page" calls use.
    const firstPage = JSON.parse((await timed(`${gateway.url}/admin/api/requests?limit=50`, operator)).body);
    const busyPage = JSON.parse((await timed(`${gateway.url}/admin/api/requests?limit=50&key=${world.busiest.id}`, operator)).body);
    context.nextBefore = firstPage.next_before;
    context.busyNextBefore = busyPage.next_before;
    context.entryId = firstPage.data[10]?.id;
    for (const call of pageCalls(context)) {
      const headers = who[call.as];
      const first = await timed(gateway.url + call.path, headers);
      if (first.status !== 200) {
        log(`  ${call.name}: ${first.status} (not offered by this build)`);
        result.calls.push({ ...call, status: first.status, median_ms: null });
        continue;
      }
      const times = [];
      for (let i = 0; i < 5; i++) times.push((await timed(gateway.url + call.path, headers)).ms);
      result.calls.push({ ...call, status: 200, median_ms: round(median(times)) });
      log(`  ${call.name}: ${round(median(times))} ms`);
    }
    for (const page of pages(context)) {
      const times = [];
      for (let i = 0; i < 5; i++) {
        const at = performance.now();
        await Promise.all(page.calls.map((call) => timed(gateway.url + call.path, who[call.as])));
        times.push(performance.now() - at);
      }
      result.pages.push({ page: page.name, median_ms: round(median(times)) });
      log(`  page ${page.name}: ${round(median(times))} ms`);
    }
    result.chat = await chatUnderReport(gateway, operator, context.from30);
    log(`  chat idle ${result.chat.idle_ms} ms, during 30-day reports ${result.chat.during_report_ms} ms (${result.chat.reports_run} reports)`);
  } finally {
    await gateway.stop();
    result.size_mb = Math.round((kind === 'sqlite' ? fileSize(join(dataDir, 'gateway.sqlite')) : await database.size()) / 1e6);
    if (!args.keep) {
      rmSync(dataDir, { recursive: true, force: true });
      await database?.drop();
    } else log(`  kept: ${kind === 'sqlite' ? dataDir : database.url}`);
  }
  return result;
}

function fileSize(path) {
  return (existsSync(path) ? statSync(path).size : 0) + (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
}

function markdown(results) {
  const stores = results.map((r) => r.store);
  const lines = [`# Console at ${rows.toLocaleString()} requests over ${days} days (${args.label})`, '', `${new Date().toISOString()}, ${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}. Median of 5, ms.`, ''];
  lines.push(`| call | ${stores.join(' | ')} |`, `|---|${stores.map(() => '---:').join('|')}|`);
  for (const [i, call] of results[0].calls.entries()) lines.push(`| ${call.name} | ${results.map((r) => r.calls[i]?.median_ms ?? 'n/a').join(' | ')} |`);
  lines.push('', `| page (its calls together) | ${stores.join(' | ')} |`, `|---|${stores.map(() => '---:').join('|')}|`);
  for (const [i, page] of results[0].pages.entries()) lines.push(`| ${page.page} | ${results.map((r) => r.pages[i]?.median_ms).join(' | ')} |`);
  lines.push('', `| other | ${stores.join(' | ')} |`, `|---|${stores.map(() => '---:').join('|')}|`);
  lines.push(`| chat, idle (median of 30) | ${results.map((r) => r.chat?.idle_ms).join(' | ')} |`);
  lines.push(`| chat, during 30-day reports (median of 30) | ${results.map((r) => r.chat?.during_report_ms).join(' | ')} |`);
  lines.push(`| chat, during reports, slowest | ${results.map((r) => r.chat?.during_max_ms).join(' | ')} |`);
  lines.push(`| start-up to /healthz | ${results.map((r) => r.start_ms).join(' | ')} |`);
  lines.push(`| seeding, s | ${results.map((r) => r.seed_s).join(' | ')} |`);
  lines.push(`| store size after the run, MB | ${results.map((r) => r.size_mb).join(' | ')} |`);
  return lines.join('\n') + '\n';
}

const results = [];
for (const kind of args.stores.split(',')) results.push(await measureStore(kind));
const outDir = join(root, 'bench/results');
mkdirSync(outDir, { recursive: true });
const base = join(outDir, `console-${new Date().toISOString().slice(0, 10)}-${args.label}`);
writeFileSync(`${base}.json`, JSON.stringify({ rows, days, label: args.label, results }, null, 2) + '\n');
writeFileSync(`${base}.md`, markdown(results));
process.stdout.write(markdown(results));
