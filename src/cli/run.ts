// The gateway's commands (start, keys, admin, db), loaded by the entry point (src/cli.ts) once it has
// checked the Node version.
import { loadConfig } from '../config/load.js';
import { connectRedis } from '../db/redis.js';
import { connectDatabase } from '../db/connect.js';
import { KEY_CACHE_CHANNEL } from '../keys/key-cache-bus.js';
import { KeyStore } from '../keys/key-store.js';
import cluster from 'node:cluster';
import { clusterLimiters } from '../ratelimit/flexible.js';
import { LeaseLedger } from '../ratelimit/lease-primary.js';
import { WINDOW_SECONDS } from '../ratelimit/limiters.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { prepareStore, startGateway } from '../main.js';
import { describeStore, keysCommand, KEYS_USAGE, UsageError } from './keys-command.js';
import { SQLITE_FILE } from '../db/connect.js';
import { SqliteWriter } from '../db/sqlite-writer.js';
import { serveWorkerWrites } from '../db/primary-writer.js';
import { rotateAdminToken } from '../keys/bootstrap.js';
import { compactSqlite } from '../db/compact-sqlite.js';
import { lockDataDir } from '../db/data-dir-lock.js';
import { makeDataDirPrivate, PRIVATE_UMASK } from './private-data-dir.js';

const USAGE = `usage:
  gateway start                      start the gateway (PORT, HOST, GATEWAY_DATA_DIR, GATEWAY_CONFIG, ...)
${KEYS_USAGE}
  gateway admin rotate-token         a new admin token, printed once (when GATEWAY_ADMIN_TOKEN is not set)
  gateway db compact                 SQLite: one-time VACUUM so deleted rows' space goes back to the disk (gateway stopped)`;

async function main(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  // Everything any command creates (store, journal, media, keys) is this user's alone (cli/private-data-dir.ts).
  process.umask(PRIVATE_UMASK);
  const config = loadConfig();
  if (command === 'start') {
    // The primary claims the directory; its workers (GATEWAY_WORKERS) serve from it under that claim.
    if (cluster.isPrimary) claimDataDir(config);
    if (config.workers > 1 && cluster.isPrimary) return startPrimary(config);
    const gateway = await startGateway(config, cluster.isWorker ? { announce: () => undefined } : {});
    if (cluster.isWorker) {
      process.send?.({ listening: gateway.url });
    } else {
      process.stdout.write(`gateway listening on ${gateway.url} (console at ${gateway.url}/console, docs at ${gateway.url}/docs)\n`);
    }
    // The first signal drains (within GATEWAY_SHUTDOWN_TIMEOUT_MS) and exits 0; a second one exits at once.
    let stopping = false;
    let signals = 0;
    const stop = async (bySignal: boolean) => {
      if (bySignal && ++signals > 1) process.exit(1);
      if (stopping) return;
      stopping = true;
      await gateway.close();
      process.exit(0);
    };
    process.on('SIGINT', () => void stop(true));
    process.on('SIGTERM', () => void stop(true));
    // A worker's primary asks over the channel, not with a signal, and its ask never counts as a
    // signal: a terminal's Ctrl-C signals every process of the group, in either order with the
    // ask, and a second signal would drop the worker's last batches.
    if (cluster.isWorker) process.on('message', (message: { gwStop?: boolean }) => void (message?.gwStop && stop(false)));
    return -1;
  }
  if (command === 'admin') {
    if (sub !== 'rotate-token') {
      process.stderr.write(`gateway: unknown admin command '${sub ?? ''}'\n${USAGE}\n`);
      return 2;
    }
    // With the variable set, every start makes its value the token again: a rotation here would not last.
    if (config.adminToken) {
      process.stderr.write('gateway: GATEWAY_ADMIN_TOKEN is set, and each start makes it the admin token: rotate it by changing the variable and restarting\n');
      return 2;
    }
    const db = await openExistingStore(config);
    if (!db) return 1;
    try {
      process.stdout.write(`Admin token (shown once, store it now): ${await rotateAdminToken(db)}\n`);
      process.stderr.write('the previous admin token stops working within 5 seconds on every instance; console sessions signed in with it end\n');
      return 0;
    } finally {
      await db.destroy();
    }
  }
  if (command === 'db') return dbCommand(config, sub);
  if (command === 'keys') {
    const db = await openExistingStore(config);
    if (!db) return 1;
    // Running instances drop their cached copy of a key changed here (key-cache-bus.ts).
    const redis = config.redisUrl ? connectRedis(config.redisUrl, { maxRetriesPerRequest: 2 }) : undefined;
    const keys = new KeyStore(db, Date.now, (keyId) => void redis?.publish(KEY_CACHE_CHANNEL, keyId).catch(() => undefined));
    try {
      return await keysCommand(keys, config, sub, rest, (line) => process.stdout.write(line + '\n'));
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      process.stderr.write(`gateway: ${error.message}\n${USAGE}\n`);
      return 2;
    } finally {
      await db.destroy();
      await redis?.quit().catch(() => undefined);
    }
  }
  process.stderr.write(USAGE + '\n');
  return command ? 2 : 0;
}

/** `gateway db compact`: the one-time VACUUM of a SQLite file made before issue 22 (docs/deployment.md). */
function dbCommand(config: ReturnType<typeof loadConfig>, sub: string | undefined): number {
  if (sub !== 'compact') {
    process.stderr.write(`gateway: unknown db command '${sub ?? ''}'\n${USAGE}\n`);
    return 2;
  }
  if (config.databaseUrl) {
    process.stderr.write('gateway: db compact is for the embedded SQLite store; PostgreSQL reuses deleted rows\' space through autovacuum (docs/deployment.md)\n');
    return 2;
  }
  const file = join(config.dataDir, SQLITE_FILE);
  if (!existsSync(file)) {
    process.stderr.write(`gateway: no gateway database at ${file}\n`);
    return 1;
  }
  try {
    const { beforeBytes, afterBytes } = compactSqlite(file);
    const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
    process.stdout.write(`${file}: ${mb(beforeBytes)} MB → ${mb(afterBytes)} MB; from now on, space freed by retention goes back to the disk\n`);
    return 0;
  } catch (error) {
    const busy = (error as { code?: string }).code === 'SQLITE_BUSY';
    process.stderr.write(`gateway: ${busy ? 'the database is in use: stop the gateway, then compact' : (error as Error).message}\n`);
    return 1;
  }
}

/**
 * Makes the data directory private and, for the embedded store, this process's alone until it
 * exits (db/data-dir-lock.ts): a second `gateway start` on it stops here, naming the holder.
 */
function claimDataDir(config: ReturnType<typeof loadConfig>): void {
  makeDataDirPrivate(config.dataDir, (line) => process.stderr.write(`gateway: ${line}\n`));
  if (config.databaseUrl) return;
  const lock = lockDataDir(config.dataDir);
  process.on('exit', () => lock.release());
}

/** The server's store, never a new one: an empty data directory is a mistake (wrong directory or variables). */
async function openExistingStore(config: ReturnType<typeof loadConfig>) {
  const sqliteFile = join(config.dataDir, SQLITE_FILE);
  if (!config.databaseUrl && !existsSync(sqliteFile)) {
    process.stderr.write(`gateway: no gateway database at ${sqliteFile}; start the gateway there first, or set GATEWAY_DATA_DIR (or GATEWAY_CONFIG, or DATABASE_URL) as the server has them\n`);
    return undefined;
  }
  process.stderr.write(`database: ${describeStore(config, sqliteFile)}\n`);
  return connectDatabase(config);
}

/**
 * GATEWAY_WORKERS=N: the primary prepares the store once, keeps the keys' limit counters across
 * workers without Redis (leasing room to them: ratelimit/lease-primary.ts), commits the workers'
 * batches to the embedded store on its one writer thread (db/primary-writer.ts), forks N workers
 * sharing the port and replaces any that die.
 */
async function startPrimary(config: ReturnType<typeof loadConfig>): Promise<number> {
  await prepareStore(config, (line) => process.stdout.write(line + '\n'));
  // Sign-in attempts still count through rate-limiter-flexible's cluster limiter (rare, per request is fine).
  new (clusterLimiters().RateLimiterClusterMaster)();
  // Keys' rpm/tpm: leases of room, so a worker asks once per lease, not per request (issue 36).
  const leases = new LeaseLedger(config.workers, WINDOW_SECONDS * 1000);
  // One writer thread for every worker (started with the first batch); PostgreSQL needs none.
  const writes = config.databaseUrl ? undefined : new SqliteWriter(join(config.dataDir, SQLITE_FILE));
  const live = new Set<ReturnType<typeof cluster.fork>>();
  let listening = 0;
  let stopping = false;
  const fork = () => {
    const worker = cluster.fork();
    live.add(worker);
    return worker.on('message', (message: { listening?: string }) => {
      if (leases.handle(worker, message)) return;
      if (writes && serveWorkerWrites(worker, message, writes)) return;
      if (message.listening && ++listening === config.workers) {
        process.stdout.write(`gateway listening on ${message.listening} with ${config.workers} workers (console at ${message.listening}/console, docs at ${message.listening}/docs)\n`);
      }
    });
  };
  for (let i = 0; i < config.workers; i++) fork();
  // The primary outlives its workers' stops: they drain, then close their stores, whose last
  // batches commit here (and their leases are still answered meanwhile).
  const finish = async () => {
    await writes?.close();
    process.exit(0);
  };
  cluster.on('exit', (worker) => {
    live.delete(worker);
    if (!stopping) fork();
    else if (live.size === 0) void finish();
  });
  const stop = () => {
    stopping = true;
    if (live.size === 0) void finish();
    // Asked over the channel (or, where it is gone, signalled), not cluster's worker.kill(): that
    // first cuts the worker's channel, and with it its last batches.
    for (const worker of live) {
      if (worker.isConnected()) worker.send({ gwStop: true });
      else worker.process.kill('SIGTERM');
    }
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return -1;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`gateway: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
