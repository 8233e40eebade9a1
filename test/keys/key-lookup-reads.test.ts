import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectDatabase, migrate, type Db } from '../../src/db/connect.js';
import { KeyStore } from '../../src/keys/key-store.js';

/**
 * A real SQLite store whose reads are counted (a Kysely plugin sees every query), and whose next
 * read's result can be held back until `release()`, to place a write in the middle of that read.
 */
async function storeWithReadCount(): Promise<{ db: Db; reads: () => number; dir: string; hold: () => () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'key-reads-'));
  const counting = await connectDatabase({ databaseUrl: undefined, dataDir: dir });
  await migrate(counting);
  let count = 0;
  let holdNext = false;
  let held: object | undefined;
  let gate: Promise<void> | undefined;
  const db = counting.withPlugin({
    transformQuery: (args) => {
      if (args.node.kind === 'SelectQueryNode') {
        count++;
        if (holdNext) {
          held = args.queryId;
          holdNext = false;
        }
      }
      return args.node;
    },
    transformResult: async (args) => {
      if (args.queryId === held) await gate;
      return args.result;
    },
  });
  const hold = () => {
    let release!: () => void;
    gate = new Promise<void>((resolve) => (release = resolve));
    holdNext = true;
    return release;
  };
  return { db, reads: () => count, dir, hold };
}

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/**
 * The key cache at a busy second's boundary (issue 36): one read per secret however many requests
 * arrive while it is out, a key in use read again before its copy runs out, and a read that
 * began before a revocation never puts the old row back.
 */
describe('key lookups share one read', () => {
  it('concurrent misses of one secret read the store once; a busy key is refreshed ahead and never misses', async () => {
    const { db, reads, dir } = await storeWithReadCount();
    let now = 1_000_000;
    const keys = new KeyStore(db, () => now);
    cleanup = async () => { await db.destroy(); rmSync(dir, { recursive: true, force: true }); };
    const { secret } = await keys.create({ name: 'busy' });
    const before = reads();
    const lookups = await Promise.all(Array.from({ length: 50 }, () => keys.authenticate(secret)));
    expect(lookups.every((l) => l.status === 'ok')).toBe(true);
    expect(reads() - before).toBe(1);
    // Within the last 200 ms of the copy: answered from it at once (no promise), one read behind it.
    now += 850;
    const ahead = keys.authenticate(secret);
    expect(ahead).not.toBeInstanceOf(Promise);
    expect(keys.authenticate(secret)).not.toBeInstanceOf(Promise);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(reads() - before).toBe(2);
    // The refreshed copy holds past the first one's end.
    now += 400;
    expect(keys.authenticate(secret)).not.toBeInstanceOf(Promise);
    // Unknown secrets share their read too.
    const unknown = await Promise.all(Array.from({ length: 20 }, () => keys.authenticate('sk-unknown-0000000000000000000000000')));
    expect(unknown.every((l) => l.status === 'invalid')).toBe(true);
    expect(reads() - before).toBe(3);
  });

  it('a read in flight when another instance revokes the key does not refill the cache with the old row', async () => {
    const { db, dir, hold } = await storeWithReadCount();
    const keys = new KeyStore(db);
    // Another instance: its own connection to the same file.
    const otherDb = await connectDatabase({ databaseUrl: undefined, dataDir: dir });
    const other = new KeyStore(otherDb);
    cleanup = async () => { await db.destroy(); await otherDb.destroy(); rmSync(dir, { recursive: true, force: true }); };
    const { key, secret } = await keys.create({ name: 'revoked-midway' });
    const release = hold();
    const inFlight = keys.authenticate(secret);
    await new Promise((resolve) => setTimeout(resolve, 10));
    // The row was read before this revocation; the invalidation bus then tells this instance.
    expect(await other.revoke(key.id)).toBe(true);
    keys.forget(key.id);
    release();
    // The request that arrived before the revocation was judged on the row it read.
    expect((await inFlight).status).toBe('ok');
    expect((await keys.authenticate(secret)).status).toBe('revoked');
  });
});
