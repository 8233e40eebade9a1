import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSqlite, type Db } from '../../src/db/connect.js';
import { SESSION_IDLE_MS, SESSION_MAX_MS, SessionStore } from '../../src/users/session-store.js';
import { UserStore } from '../../src/users/user-store.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Session lifetimes on a real SQLite store with a clock the test moves (issue 12). */
describe('session expiry', () => {
  let dir: string;
  let db: Db;
  let clock = Date.UTC(2026, 10, 1);
  const now = () => clock;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-sessions-'));
    db = await connectSqlite(dir);
  });
  afterAll(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('slides 7 days past the last use (at most one write an hour), but never past 30 days after sign-in', async () => {
    const users = new UserStore(db, now);
    const sessions = new SessionStore(db, now);
    const user = (await users.create({ email: 'slide@example.org', name: 'Slide' }))!;
    const { token, session } = await sessions.create(user, 'password');
    expect(session.expiresAt).toBe(clock + SESSION_IDLE_MS);

    clock += 30 * 60_000;
    expect((await sessions.find(token))!.expiresAt).toBe(session.expiresAt); // under an hour: no write
    // Used every 6 days, it lives on past the first 7...
    for (let day = 6; day <= 18; day += 6) {
      clock = session.expiresAt - SESSION_IDLE_MS + day * DAY;
      const found = await sessions.find(token);
      expect(found, `day ${day}`).toBeDefined();
      expect(found!.expiresAt).toBe(clock + SESSION_IDLE_MS);
    }
    // ...until 30 days after sign-in, however often it is used.
    const signedInAt = session.expiresAt - SESSION_IDLE_MS;
    clock = signedInAt + 24 * DAY;
    expect((await sessions.find(token))!.expiresAt).toBe(signedInAt + SESSION_MAX_MS);
    clock = signedInAt + 29 * DAY;
    expect((await sessions.find(token))!.expiresAt).toBe(signedInAt + SESSION_MAX_MS);
    clock = signedInAt + SESSION_MAX_MS;
    expect(await sessions.find(token)).toBeUndefined();
  });

  it('ends after 7 idle days', async () => {
    const users = new UserStore(db, now);
    const sessions = new SessionStore(db, now);
    const user = (await users.create({ email: 'idle@example.org', name: 'Idle' }))!;
    const { token } = await sessions.create(user, 'password');
    clock += SESSION_IDLE_MS - 1;
    expect(await sessions.find(token)).toBeDefined();
    clock += SESSION_IDLE_MS;
    expect(await sessions.find(token)).toBeUndefined();
    await sessions.deleteExpired();
    expect(await db.selectFrom('sessions').select('token_hash').where('user_id', '=', user.id).execute()).toEqual([]);
  });
});
