// Seeds a store with the world of data.js, fast: straight into the tables (not through HTTP).
// SQLite: one prepared insert per table, 20,000 rows per transaction. PostgreSQL: one
// INSERT … SELECT FROM unnest(arrays) per 10,000 rows. Written against the tables as every
// version of the gateway has them (usage_events, request_details, api_keys, users, sessions);
// what a version adds is used when it is there: its rollups are built by its own code, and its
// compact header storage (packHeaders) is used for the headers, and its entry ids (issue 23) join
// each event to its details, as the gateway writes them.
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';

const EVENT_COLUMNS = ['request_id', 'key_id', 'model', 'channel', 'family', 'status', 'outcome', 'prompt_tokens', 'completion_tokens', 'reasoning_tokens', 'images', 'video_seconds', 'cost_usd', 'latency_ms', 'ttft_ms', 'created_at'];
const EVENT_TYPES = ['text', 'text', 'text', 'text', 'text', 'int8', 'text', 'int8', 'int8', 'int8', 'int8', 'float8', 'float8', 'int8', 'int8', 'int8'];

const DETAIL_COLUMNS = ['request_id', 'created_at', 'retries', 'fallbacks', 'error_code', 'error_message', 'request_headers'];
const DETAIL_TYPES = ['text', 'int8', 'int8', 'int8', 'text', 'text', 'text', 'text'];
const detailColumns = (withEntryIds) => (withEntryIds ? [...DETAIL_COLUMNS, 'entry_id'] : DETAIL_COLUMNS);
const detailValues = (detail, withEntryIds, packHeaders) => {
  const values = [detail.request_id, detail.created_at, detail.retries, detail.fallbacks, detail.error_code, detail.error_message, packHeaders ? packHeaders(detail.headers) : JSON.stringify(detail.headers)];
  return withEntryIds ? [...values, detail.entry_id] : values;
};
const sha256 = (text) => createHash('sha256').update(text).digest('hex');

/** What this build of the gateway offers the seed (absent on older builds). */
async function gatewayModules(root) {
  const load = async (path) => import(join(root, 'dist', path)).catch(() => ({}));
  const connect = await load('db/connect.js');
  const headers = await load('requests/packed-headers.js');
  const rollups = await load('db/usage-rollups.js');
  const entryIds = await load('usage/entry-id.js');
  return { connect, packHeaders: headers.packHeaders, rebuildRollups: rollups.rebuildRollups, newEntryId: entryIds.newEntryId };
}

/**
 * Users, keys, a session for two key holders, then `rows` events with their details. Returns the
 * session cookies and the event in the middle (its request id is searched for). `store` is { kind: 'sqlite', dataDir } or { kind: 'postgres', url }.
 */
export async function seed(root, store, world, rows, log) {
  const mods = await gatewayModules(root);
  const db = store.kind === 'sqlite' ? await mods.connect.connectSqlite(store.dataDir) : await mods.connect.connectPostgres(store.url, 4);
  const now = Date.now();
  try {
    await db.insertInto('users').values(world.users.map((u) => ({ id: u.id, email: u.email, name: u.name, role: 'user', created_at: world.start }))).execute();
    await db
      .insertInto('api_keys')
      .values(world.keys.map((k) => ({ id: k.id, name: k.name, prefix: `sk-gw-${k.index}`, secret_hash: sha256(`bench-secret-${k.index}`), owner: k.owner, created_at: world.start })))
      .execute();
    const sessions = {};
    for (const [label, user] of [['busyUser', world.busyUser], ['quietUser', world.quietUser]]) {
      const token = randomBytes(32).toString('base64url');
      await db.insertInto('sessions').values({ token_hash: sha256(token), user_id: user.id, csrf_token: 'bench', method: 'password', admin_token_hash: null, created_at: now, expires_at: now + 7 * 86_400_000 }).execute();
      sessions[label] = `gw_session=${token}`;
    }
    const packed = mods.packHeaders;
    // Builds since issue 22 keep the error code on the event too.
    const present = await columnsOf(db, 'usage_events');
    // Without entry ids every detail would join no event, and ANALYZE would find their index useless.
    const withEntryIds = present.includes('entry_id') && mods.newEntryId !== undefined;
    const eventColumns = [...EVENT_COLUMNS, ...(present.includes('error_code') ? ['error_code'] : []), ...(withEntryIds ? ['entry_id'] : [])];
    const started = Date.now();
    const sampleAt = Math.floor(rows / 2);
    let sample;
    const eventAt = (i) => {
      const generated = world.event(i);
      if (withEntryIds) generated.event.entry_id = generated.detail.entry_id = mods.newEntryId(generated.event.created_at);
      if (i === sampleAt) sample = generated.event;
      return generated;
    };
    if (store.kind === 'sqlite') seedSqlite(mods.connect.sqliteHandleOf(db), eventAt, rows, eventColumns, packed ? mods.packHeaders : undefined, log);
    else await seedPostgres(db, eventAt, rows, eventColumns, packed ? mods.packHeaders : undefined, log);
    log(`  ${rows.toLocaleString()} events and details in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    if (store.kind === 'sqlite' && mods.rebuildRollups) {
      const at = Date.now();
      await mods.rebuildRollups(db);
      log(`  rollups built in ${((Date.now() - at) / 1000).toFixed(1)} s`);
    }
    if (store.kind === 'sqlite') mods.connect.sqliteHandleOf(db).exec('ANALYZE');
    return { sessions, sample };
  } finally {
    await db.destroy();
  }
}

async function columnsOf(db, table) {
  const tables = await db.introspection.getTables();
  return tables.find((t) => t.name === table)?.columns.map((c) => c.name) ?? [];
}

function seedSqlite(sqlite, eventAt, rows, eventColumns, packHeaders, log) {
  const insertEvent = sqlite.prepare(`insert into usage_events (${eventColumns.join(', ')}) values (${eventColumns.map(() => '?').join(', ')})`);
  const withEntryIds = eventColumns.includes('entry_id');
  const insertDetail = sqlite.prepare(`insert into request_details (${detailColumns(withEntryIds).join(', ')}) values (${detailColumns(withEntryIds).map(() => '?').join(', ')})`);
  const chunk = sqlite.transaction((from, to) => {
    for (let i = from; i < to; i++) {
      const { event, detail } = eventAt(i);
      insertEvent.run(eventColumns.map((c) => (c === 'error_code' ? detail.error_code : event[c])));
      insertDetail.run(detailValues(detail, withEntryIds, packHeaders));
    }
  });
  for (let from = 0; from < rows; from += 20_000) {
    chunk(from, Math.min(rows, from + 20_000));
    if (from % 200_000 === 0) log(`  sqlite: ${from.toLocaleString()} rows`);
  }
}

async function seedPostgres(db, eventAt, rows, eventColumns, packHeaders, log) {
  const { sql } = await import('kysely');
  const cast = eventColumns.map((c, i) => `$${i + 1}::${EVENT_TYPES[i] ?? 'text'}[]`).join(', ');
  const eventSql = `insert into usage_events (${eventColumns.join(', ')}) select * from unnest(${cast})`;
  const withEntryIds = eventColumns.includes('entry_id');
  const columns = detailColumns(withEntryIds);
  const detailSql = `insert into request_details (${columns.join(', ')})
    select * from unnest(${columns.map((c, i) => `$${i + 1}::${DETAIL_TYPES[i]}[]`).join(', ')})`;
  const { CompiledQuery } = await import('kysely');
  for (let from = 0; from < rows; from += 10_000) {
    const to = Math.min(rows, from + 10_000);
    const events = eventColumns.map(() => []);
    const details = columns.map(() => []);
    for (let i = from; i < to; i++) {
      const { event, detail } = eventAt(i);
      eventColumns.forEach((c, j) => events[j].push(c === 'error_code' ? detail.error_code : event[c]));
      detailValues(detail, withEntryIds, packHeaders).forEach((v, j) => details[j].push(v));
    }
    await db.executeQuery(CompiledQuery.raw(eventSql, events));
    await db.executeQuery(CompiledQuery.raw(detailSql, details));
    if (from % 200_000 === 0) log(`  postgres: ${from.toLocaleString()} rows`);
  }
  await sql`analyze`.execute(db);
}
