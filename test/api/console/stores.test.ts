import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresPool } from '../../../src/db/connect.js';
import { initial } from '../../../src/db/migrations/0001-initial.js';
import { videoTaskPolls } from '../../../src/db/migrations/0002-video-task-polls.js';
import { keyControls } from '../../../src/db/migrations/0003-key-controls.js';
import { hashSecret } from '../../../src/keys/secrets.js';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { admin, bearer } from '../../helpers/admin.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/services.js';
import { consoleCall, inviteUser, signIn } from '../../helpers/console.js';

const OLD_SECRET = 'sk-gw-made-before-users-existed-0123456789';

/** A store as the gateway left it before issue 12: migrations 0001-0003 only, with one key. */
async function storeBeforeUsers(db: Kysely<any>): Promise<void> {
  const nameComparator = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  const provider = { getMigrations: async () => ({ '0001-initial': initial, '0002-video-task-polls': videoTaskPolls, '0003-key-controls': keyControls }) };
  const { error } = await new Migrator({ db, provider, nameComparator }).migrateToLatest();
  if (error) throw error;
  await db
    .insertInto('api_keys')
    .values({ id: 'key_legacy', name: 'legacy', prefix: OLD_SECRET.slice(0, 12), secret_hash: hashSecret(OLD_SECRET), models: null, endpoints: null, tier: null, rpm: null, tpm: null, budget_usd: null, expires_at: null, revoked_at: null, created_at: Date.now(), disabled_at: null })
    .execute();
  await db.destroy();
}

const chat = (gateway: TestGateway, secret: string) =>
  call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }, bearer(secret));

/** Under GATEWAY_TEST_DATABASE=postgres every test gateway is on PostgreSQL, so the SQLite case does not apply. */
const STORES = process.env.GATEWAY_TEST_DATABASE === 'postgres' ? (['postgres'] as const) : (['sqlite', 'postgres'] as const);

describe.each(STORES)('users, sessions and key owners on %s (issue 12)', (store) => {
  let gateway: TestGateway | undefined;
  let database: TestDatabase | undefined;
  afterAll(async () => {
    await gateway?.stop();
    await database?.drop();
  });

  it('migrates a store with keys made before users existed: they belong to operator and keep working', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-console-store-'));
    if (store === 'postgres') {
      database = await createTestDatabase();
      await storeBeforeUsers(new Kysely<any>({ dialect: new PostgresDialect({ pool: postgresPool(database.url, 1) }) }));
      gateway = await startTestGateway({ dataDir, env: { databaseUrl: database.url } });
    } else {
      await storeBeforeUsers(new Kysely<any>({ dialect: new SqliteDialect({ database: new SqliteDatabase(join(dataDir, 'gateway.sqlite')) }) }));
      gateway = await startTestGateway({ dataDir });
    }
    expect((await chat(gateway, OLD_SECRET)).status).toBe(200);
    const legacy = await admin(gateway, 'GET', '/keys/key_legacy');
    expect(legacy.json).toMatchObject({ owner: 'operator', owner_email: null, status: 'active' });
    expect((await admin(gateway, 'GET', '/users')).json.data.map((u: { id: string }) => u.id)).toEqual(['operator']);
  });

  it('the whole flow: invite, accept, sign in, make and use a key, usage by user, regenerate, sign out everywhere', async () => {
    const g = gateway!;
    const person = await inviteUser(g, { budget_usd: 5, models: ['delta-4.1'] });
    const session = await signIn(g, person.email, person.password);
    const key = await consoleCall(g, 'POST', '/console/api/keys', { name: 'on-' + store, budget_usd: 2 }, { session });
    expect(key.status, key.text).toBe(201);
    expect(key.json).toMatchObject({ owner: person.id, models: ['delta-4.1'], budget_usd: 2 });
    expect((await chat(g, key.json.key)).status).toBe(200);
    await expect.poll(async () => (await admin(g, 'GET', '/usage?group_by=user')).json.groups.find((x: { group: string }) => x.group === person.id)?.requests).toBe(1);
    const listed = await consoleCall(g, 'GET', '/console/api/keys', undefined, { session });
    expect(listed.json.data[0]).toMatchObject({ id: key.json.id, last_used_at: expect.any(String) });
    const rotated = await consoleCall(g, 'POST', `/console/api/keys/${key.json.id}/regenerate`, undefined, { session });
    expect((await chat(g, key.json.key)).status).toBe(401);
    expect((await chat(g, rotated.json.key)).status).toBe(200);
    expect((await consoleCall(g, 'POST', '/console/api/session/revoke-all', undefined, { session })).status).toBe(204);
    expect((await consoleCall(g, 'GET', '/console/api/keys', undefined, { session: person.session })).status).toBe(401);
  });
});
