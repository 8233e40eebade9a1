import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oldPostgresStore, oldSqliteStore, type OldStore, type StoreFacts } from './old-stores.js';

/** The last migration of the store being upgraded: every later one runs in the test. */
const BEFORE = '0010-channel-settings';
/**
 * Enough history that the later migrations (ids, rollups, indexes, error codes) take a second or
 * more. PostgreSQL's upgrade is slower per event, and a killed client's statement runs on to its
 * end before the next start gets the lock, so it gets fewer.
 */
const EVENTS = { sqlite: 100_000, postgres: 20_000 };
/** Where the kills land, as fractions of the upgrade's duration measured in the same run. */
const KILL_AT = [0.03, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9];
const UPGRADE = join(import.meta.dirname, 'upgrade-store.mjs');

interface UpgradeRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** From the child's "migrating" line to its exit. */
  upgradeMs: number;
}

/** The upgrade in a process of its own (the build, as `npm start` runs it); SIGKILLed `killAfterMs` into it if given. */
function runUpgrade(kind: 'sqlite' | 'postgres', target: string, killAfterMs?: number): Promise<UpgradeRun> {
  const child = spawn(process.execPath, [UPGRADE, kind, target], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let startedAt: number | undefined;
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    if (startedAt !== undefined || !chunk.toString().includes('migrating')) return;
    startedAt = performance.now();
    if (killAfterMs !== undefined) setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  });
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal, stderr, upgradeMs: performance.now() - (startedAt ?? performance.now()) }));
  });
}

/**
 * Issue 34 item 2: a start killed while it upgrades an older store (a probe giving up on a slow
 * start) leaves the old schema or the new one, never a mix, and the next start completes the
 * upgrade with every row kept. Before, 5 kills in 6 left a store that never started again
 * (`duplicate column name: entry_id`). One file per store kind (killed-upgrade-sqlite.test.ts,
 * killed-upgrade-postgres.test.ts), so the two run on separate test workers (issue 45).
 */
export function killedUpgradeSuite(kind: 'sqlite' | 'postgres'): void {
  describe(`an upgrade of a ${kind} store killed at any point (issue 34)`, () => {
    let store: OldStore;
    let oldSchema: string[];
    let oldMigrations: string[];
    let oldFacts: StoreFacts;
    let newSchema: string[];
    let newMigrations: string[];
    let upgradeMs: number;
    let killedWhileRunning = 0;

    beforeAll(async () => {
      store = kind === 'sqlite' ? await oldSqliteStore(BEFORE, EVENTS[kind]) : await oldPostgresStore(BEFORE, EVENTS[kind]);
      const old = await store.copy();
      [oldSchema, oldMigrations, oldFacts] = await Promise.all([old.schema(), old.migrations(), old.facts()]);
      await old.dispose();
      expect(oldFacts.events).toBe(EVENTS[kind]);
      // What a new installation gets: the schema every upgrade must end at.
      const fresh = await store.empty();
      const created = await runUpgrade(kind, fresh.target);
      expect(created.code, created.stderr).toBe(0);
      [newSchema, newMigrations] = await Promise.all([fresh.schema(), fresh.migrations()]);
      await fresh.dispose();
      expect(newSchema).not.toEqual(oldSchema);
      // Calibration: the whole upgrade, not killed, on this machine and in this run.
      const calibration = await store.copy();
      const whole = await runUpgrade(kind, calibration.target);
      expect(whole.code, whole.stderr).toBe(0);
      expect(await calibration.schema()).toEqual(newSchema);
      upgradeMs = whole.upgradeMs;
      await calibration.dispose();
    }, 180_000);

    afterAll(async () => {
      await store?.dispose();
    });

    it.each(KILL_AT)('killed %s of the way through: the old schema or the new, and the next start finishes the upgrade', async (fraction) => {
      const copy = await store.copy();
      try {
        const killed = await runUpgrade(kind, copy.target, fraction * upgradeMs);
        if (killed.signal === 'SIGKILL') killedWhileRunning++;
        else expect(killed.code, killed.stderr).toBe(0);

        const left = await copy.schema();
        const leftMigrations = await copy.migrations();
        const isNew = left.length === newSchema.length && left.every((line, i) => line === newSchema[i]);
        expect(left, 'a killed upgrade left a schema that is neither the old one nor the new one').toEqual(isNew ? newSchema : oldSchema);
        expect(leftMigrations).toEqual(isNew ? newMigrations : oldMigrations);
        expect((await copy.facts()).events).toBe(EVENTS[kind]);

        const resumed = await runUpgrade(kind, copy.target);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(await copy.schema()).toEqual(newSchema);
        expect(await copy.migrations()).toEqual(newMigrations);
        // Every row kept, and the stored events rolled up exactly once.
        expect(await copy.facts()).toEqual({ ...oldFacts, rolledUpEvents: EVENTS[kind] });
      } finally {
        await copy.dispose();
      }
    }, 120_000);

    // On SQLite the file's write lock serialises starts; a second start waits its busy timeout (5 s) at most.
    it.runIf(kind === 'postgres')('three instances upgrading the same old store at once: one migrates, the others wait and find it done', async () => {
      const copy = await store.copy();
      try {
        const runs = await Promise.all([0, 1, 2].map(() => runUpgrade(kind, copy.target)));
        for (const run of runs) expect(run.code, run.stderr).toBe(0);
        expect(await copy.schema()).toEqual(newSchema);
        expect(await copy.facts()).toEqual({ ...oldFacts, rolledUpEvents: EVENTS[kind] });
      } finally {
        await copy.dispose();
      }
    }, 120_000);

    it('the kills landed while the upgrade was running (the calibration held)', () => {
      expect(killedWhileRunning).toBeGreaterThanOrEqual(KILL_AT.length - 2);
    });
  });
}
