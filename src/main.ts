import { ResponseCache } from './cache/response-cache.js';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { GatewayConfig } from './config/schema.js';
import { join } from 'node:path';
import { connectDatabase, SQLITE_FILE, withStartupLock, type Db } from './db/connect.js';
import { openSqliteReader } from './db/sqlite-reader.js';
import { Retention } from './db/retention.js';
import { KeyStore } from './keys/key-store.js';
import { KeyCacheBus } from './keys/key-cache-bus.js';
import { ensureAdminToken, ensureBootstrapKey } from './keys/bootstrap.js';
import { UpstreamClient } from './gateway/upstream-client.js';
import { DEFAULT_TIMEOUTS, type Channel } from './gateway/channel.js';
import type { GatewayDeps } from './gateway-deps.js';
import { connectRedis } from './db/redis.js';
import { UsageRecorder } from './usage/usage-recorder.js';
import { UsageJournal, type JournalHealthOptions } from './usage/usage-journal.js';
import { RequestLog, requestLogSettings } from './requests/request-log.js';
import { ChannelControl } from './gateway/channel-control.js';
import { AuthFailureGuard } from './gateway/auth-failure-guard.js';
import { ChannelHealth } from './gateway/channel-health.js';
import { StickyLoad } from './gateway/sticky-load.js';
import { ResponseHomes } from './gateway/response-homes.js';
import { CircuitBreakers, DEFAULT_CIRCUIT } from './gateway/circuit-breaker.js';
import { DEFAULT_RETRY_POLICY } from './gateway/retry-policy.js';
import { startTracing } from './telemetry/tracing.js';
import { DEFAULT_INSTANCE_LEASE_MS, InstanceRegistry } from './db/instance-registry.js';
import { forgetInstances } from './usage/shared-budget-holds.js';
import { RuntimeCatalog } from './gateway/runtime-catalog.js';
import { RuntimeChannelStore } from './gateway/channel-store.js';
import { McpServerStore } from './gateway/mcp/server-store.js';
import { buildUpstreamGuard, refusedUrl, type UpstreamGuard } from './gateway/upstream-guard.js';
import { checkFileUpstreams, mcpServerUpstreamUrls } from './gateway/upstream-urls.js';
import { McpSessionStore } from './gateway/mcp/session-store.js';
import { McpUpstreams } from './gateway/mcp/upstream.js';
import { McpUpstreamAuth } from './gateway/mcp/upstream-auth.js';
import { McpHealth } from './gateway/mcp/health.js';
import { describeSealedChannels } from './gateway/sealed-channels.js';
import { loadSecretBox } from './keys/secret-box.js';
import { chooseCacheStore } from './cache/choose-cache-store.js';
import type { FileStore } from './files/file-store.js';

export interface RunningGateway {
  app: FastifyInstance;
  /** Base URL the gateway listens on, e.g. http://127.0.0.1:8080 */
  url: string;
  deps: GatewayDeps;
  /** Deletes raw rows past the window in the background (started once the server listens). */
  retention: Retention;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Where first-start secrets are printed (stdout by default). */
  announce?: (line: string) => void;
  /** The file store to serve (issue 46): tests hand one in; TODO(issue 46): the Files API's own store is wired at merge. */
  files?: FileStore;
}

/**
 * Migrations and first-start secrets, once. `startGateway` does this itself; a cluster primary
 * (GATEWAY_WORKERS) does it before forking so workers never race on an empty database.
 */
export async function prepareStore(config: GatewayConfig, announce: (line: string) => void): Promise<void> {
  const db = await connectDatabase(config);
  try {
    await withStartupLock(db, async () => {
      await ensureBootstrapKey(new KeyStore(db), config.bootstrapKey, announce, db);
      await ensureAdminToken(db, config.adminToken, announce);
    });
    // The primary refuses here, before forking: workers that fail their start would be forked again and again.
    if (!config.allowUnopenableChannels) {
      const store = new RuntimeChannelStore(db, loadSecretBox({ secretKey: config.secretKey, secretKeyPrevious: config.secretKeyPrevious, dataDir: config.dataDir, isShared: config.databaseUrl !== undefined }, announce));
      const { unreadable } = await store.list();
      // GATEWAY_SECRET_KEY_PREVIOUS opens too (a rotation): only what no key opens stops the start.
      if (unreadable.length > 0) throw new Error(describeSealedChannels(unreadable, store.keyId));
    }
  } finally {
    await db.destroy();
  }
}

/**
 * Redis must never stall a request (issue 13): a command gives up after 500 ms, and while the
 * connection is down the limiters, budget holds and sign-in counts use this instance's own figures
 * at once (they check the connection's state first). ioredis reconnects on its own, every 0.2 to 2 s.
 */
const SHARED_REDIS_OPTIONS = {
  lazyConnect: false,
  maxRetriesPerRequest: 1,
  commandTimeout: 500,
  connectTimeout: 2_000,
  retryStrategy: (attempt: number) => Math.min(attempt * 200, 2_000),
};

/** One warning when Redis goes away and one line when it is back, not one per request. */
function reportRedisOutages(redis: Redis, log: FastifyBaseLogger): void {
  let down = false;
  // Connection errors come with every reconnect attempt; the close below reports the outage once.
  redis.on('error', () => undefined);
  redis.on('close', () => {
    if (down) return;
    down = true;
    log.warn('Redis is unreachable: rate limits, budgets and sign-in counts are per instance until it returns');
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    log.warn('Redis is reachable again: limits are shared across instances');
  });
}

/**
 * Stores what crashed processes journaled but never wrote, then starts this instance's recorder
 * with a journal of its own (issue 13 item 11).
 */
async function startUsageRecorder(db: Db, dataDir: string, instanceId: string, redis: Redis | undefined, onError: (error: unknown) => void, health: JournalHealthOptions): Promise<UsageRecorder> {
  const left = UsageJournal.leftBehind(dataDir);
  if (left.events.length > 0) {
    const replayer = new UsageRecorder(db);
    try {
      await replayer.replay(left.events);
    } finally {
      await replayer.close();
    }
    // The dead instances' unwritten figures in Redis are in the ledger now (issue 23).
    if (redis) await forgetInstances(redis, left.folders, left.events.flatMap((event) => (event.key_id ? [event.key_id] : []))).catch(onError);
  }
  left.done();
  return new UsageRecorder(db, { journal: new UsageJournal(UsageJournal.folderFor(dataDir, instanceId), health), onError });
}

/** A host name or address, with an optional port: nothing a header could smuggle into a link. */
const PLAIN_HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The origin a client reached: Fastify reads `X-Forwarded-Proto`/`-Host` only from the proxies
 * GATEWAY_TRUST_PROXY names, the connection and `Host` otherwise (issue 15: a remote client
 * never gets a 127.0.0.1 link).
 */
function requestOrigin(request: FastifyRequest): string | undefined {
  const host = request.host;
  return host && PLAIN_HOST.test(host) ? `${request.protocol}://${host}` : undefined;
}

/** The database, Redis, the read side and the keys, with the first-start secrets in place. */
interface Storage {
  db: Db;
  readDb: Db;
  redis: Redis | undefined;
  keys: KeyStore;
  /** Set once subscribed (startBackgroundJobs): until then a key change has no one else to tell. */
  keyBus: { current?: KeyCacheBus };
}

async function openStorage(config: GatewayConfig, announce: (line: string) => void): Promise<Storage> {
  const db: Db = await connectDatabase(config);
  const redis = config.redisUrl ? connectRedis(config.redisUrl, SHARED_REDIS_OPTIONS) : undefined;
  const keyBus: Storage['keyBus'] = {};
  const keys = new KeyStore(db, Date.now, (keyId) => keyBus.current?.publish(keyId));
  await withStartupLock(db, async () => {
    await ensureBootstrapKey(keys, config.bootstrapKey, announce, db);
    await ensureAdminToken(db, config.adminToken, announce);
  });
  const readDb = config.databaseUrl ? db : openSqliteReader(join(config.dataDir, SQLITE_FILE));
  return { db, readDb, redis, keys, keyBus };
}

/** The catalog first: the file's channels, prices and tiers must name models it knows (issue 21). */
async function startCatalog(config: GatewayConfig, storage: Storage, announce: (line: string) => void, warn: Warn): Promise<RuntimeCatalog> {
  try {
    return await RuntimeCatalog.start({ db: storage.db, config, announce, warn });
  } catch (error) {
    if (storage.readDb !== storage.db) await storage.readDb.destroy();
    await storage.db.destroy();
    await storage.redis?.quit();
    throw error;
  }
}

type Warn = (message: string, error?: unknown) => void;

/** What records and reports: usage, the request log, retention, the instance lease, traces. */
async function buildRecorders(config: GatewayConfig, storage: Storage, log: FastifyBaseLogger) {
  const { db, redis } = storage;
  const instanceId = UsageJournal.instanceName();
  const instances = redis
    ? new InstanceRegistry(redis, instanceId, config.instanceLeaseMs ?? DEFAULT_INSTANCE_LEASE_MS, Date.now, (error) => log.warn({ err: error }, 'instance registry'))
    : undefined;
  const usage = await startUsageRecorder(db, config.dataDir, instanceId, redis, (error) => log.error({ err: error }, 'usage write failed: the events stay queued and journaled, and are retried'), {
    onFailing: (error) => log.error({ err: error }, 'the usage journal cannot be written (disk full?): billable requests get 503 and /readyz is not ready until it can'),
    onRecovered: () => log.warn('the usage journal is written again: billable requests are accepted'),
    probeMs: config.usageJournalProbeMs,
  });
  const requestLog = new RequestLog(db, requestLogSettings(config.file.request_log), {
    onError: (error) => log.warn({ err: error }, 'request log write failed: the entries stay queued and are retried'),
  });
  // Retention deletes in the background, a chunk at a time, once the server listens (issue 22).
  const retention = new Retention(db, {
    cutoff: () => requestLog.cutoff,
    onError: (error) => log.warn({ err: error }, 'retention: deleting old usage events and request details failed; tried again in an hour'),
  });
  const tracing = config.tracing
    ? await startTracing(config.tracing, (error) => log.warn({ err: error }, 'traces could not be exported (reported at most once a minute)'))
    : undefined;
  return { instances, usage, requestLog, retention, tracing };
}

/** The channel settings over the catalog's channels; `routable()` is the list in force. */
async function buildChannels(db: Db, runtime: RuntimeCatalog, warn: Warn) {
  let routableNow: readonly Channel[] = [];
  const channelControl = new ChannelControl(db, runtime.channels, {
    disabledInFile: runtime.disabled,
    onChange: (routable, all) => {
      runtime.onChannels(all);
      routableNow = routable;
    },
    onError: (error) => warn('reading the channel settings failed; the last ones stay in force', error),
  });
  await channelControl.load();
  runtime.attach(channelControl);
  routableNow = channelControl.routable;
  return { channelControl, routable: () => routableNow };
}

/** The MCP gateway's servers, sessions and upstream calls. */
function buildMcp(config: GatewayConfig, db: Db, runtime: RuntimeCatalog, upstream: UpstreamClient, upstreamGuard: UpstreamGuard): GatewayDeps['mcp'] {
  const health = new McpHealth();
  // Upstream MCP calls share the channels' agent (its pools and connect timeout).
  const dispatcher = upstream.agent(DEFAULT_TIMEOUTS.connectMs);
  const servers = new McpServerStore(db, runtime.channelStore.box, config.file.mcp_servers ?? [], Date.now, (server) => !refusedUrl(upstreamGuard, mcpServerUpstreamUrls(server)));
  const upstreams = new McpUpstreams(new McpUpstreamAuth(dispatcher), health, { dispatcher, maxResultBytes: config.mcpMaxResultBytes });
  const sessions = new McpSessionStore(db, {
    perKey: config.mcpSessionsPerKey,
    idleMs: config.mcpSessionIdleMs,
    // A session that ends without a client's DELETE (idle, over the key's cap) ends its upstream sessions too.
    onEnded: (session) => void servers.all().then((all) => upstreams.endSessions(session.upstreams, all), () => undefined),
  });
  return { servers, sessions, upstreams, health };
}

/** The response cache with its switches read and its sweep running. */
async function buildResponseCache(config: GatewayConfig, storage: Storage): Promise<ResponseCache> {
  const responseCache = new ResponseCache(storage.db, config.file.cache, Date.now, chooseCacheStore(config, storage.redis));
  await responseCache.start();
  return responseCache;
}

/** Circuits, retries, sticky load and the auth-failure guard, from the file's `routing`. */
function buildRouting(config: GatewayConfig, channelControl: ChannelControl, log: FastifyBaseLogger, warn: Warn) {
  const routing = config.file.routing ?? {};
  const authFailures = new AuthFailureGuard({
    thresholdOf: (name) => channelControl.find(name)?.autoDisableAfterAuthFailures ?? routing.auto_disable_after_auth_failures,
    disable: async (name, reason) => {
      if (!channelControl.isEnabled(name)) return;
      await channelControl.autoDisable(name, reason);
      log.warn({ channel: name, failures: reason.failures, status: reason.status }, 'channel disabled after consecutive authentication failures from its vendor; enable it again once its credential is fixed');
    },
    onError: (name, error) => warn(`disabling channel ${name} after authentication failures failed`, error),
  });
  const circuits = new CircuitBreakers({
    threshold: routing.circuit_threshold ?? DEFAULT_CIRCUIT.threshold,
    coolDownMs: routing.circuit_cool_down_ms ?? DEFAULT_CIRCUIT.coolDownMs,
  });
  const retryPolicy = {
    baseDelayMs: routing.retry_base_delay_ms ?? DEFAULT_RETRY_POLICY.baseDelayMs,
    maxDelayMs: routing.retry_max_delay_ms ?? DEFAULT_RETRY_POLICY.maxDelayMs,
    maxWaitMs: routing.retry_max_wait_ms ?? DEFAULT_RETRY_POLICY.maxWaitMs,
  };
  return { channelHealth: new ChannelHealth(), authFailures, circuits, stickyLoad: new StickyLoad(), retryPolicy };
}

/** Every dependency the app needs, complete before the app is built. */
async function buildDeps(config: GatewayConfig, storage: Storage, runtime: RuntimeCatalog, log: FastifyBaseLogger, warn: Warn, upstreamGuard: UpstreamGuard, listenUrl: () => string) {
  const upstream = new UpstreamClient({ maxBodyBytes: config.maxUpstreamBodyBytes });
  const recorders = await buildRecorders(config, storage, log);
  const { channelControl, routable } = await buildChannels(storage.db, runtime, warn);
  const responseCache = await buildResponseCache(config, storage);
  const { db, readDb, keys, redis } = storage;
  const { catalog, prices, sync: catalogSync } = runtime;
  const { instances, usage, requestLog, tracing } = recorders;
  const deps: GatewayDeps = {
    config,
    responseCache,
    db,
    readDb,
    keys,
    redis,
    instances,
    usage,
    requestLog,
    // The list in force: the channel settings replace it when they change.
    get channels() {
      return routable();
    },
    catalog,
    prices,
    catalogStore: runtime.store,
    catalogSync,
    channelStore: runtime.channelStore,
    channelControl,
    ...buildRouting(config, channelControl, log, warn),
    mcp: buildMcp(config, db, runtime, upstream, upstreamGuard),
    upstream,
    responseHomes: new ResponseHomes(db),
    simulators: runtime.builder.simulators,
    tracing,
    publicUrl: (request) => config.publicUrl ?? (request ? requestOrigin(request) : undefined) ?? listenUrl(),
    now: Date.now,
  };
  return { deps, retention: recorders.retention };
}

/** What runs beside the requests: channel settings, catalog sync, Redis reports, the key bus, the lease. */
async function startBackgroundJobs(deps: GatewayDeps, storage: Storage, log: FastifyBaseLogger): Promise<void> {
  deps.channelControl.start();
  deps.catalogSync.start();
  const { redis, keys } = storage;
  if (!redis) return;
  reportRedisOutages(redis, log);
  // Subscribed before listening, so no revocation made elsewhere after this start is missed.
  const keyCacheBus = new KeyCacheBus({ redis, invalidate: () => keys.invalidate(), onError: (err) => log.warn({ err }, 'key-cache bus') });
  storage.keyBus.current = keyCacheBus;
  await keyCacheBus.start();
  await deps.instances!.start();
}

/** Listens and answers the URL clients reach this instance at. */
async function listen(app: FastifyInstance, config: GatewayConfig): Promise<string> {
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Drains the requests, then closes every part in the order the others need. */
async function stopGateway(app: FastifyInstance, config: GatewayConfig, deps: GatewayDeps, storage: Storage, runtime: RuntimeCatalog, retention: Retention): Promise<void> {
  await drainAndClose(app, config.shutdownTimeoutMs ?? 25_000);
  deps.channelControl.close();
  deps.responseCache.stop();
  await retention.close();
  // Every request has ended, and its spans with it: the last batch goes out now.
  const tracesSent = deps.tracing?.shutdown().catch((error: unknown) => app.log.warn({ err: error }, 'the last traces could not be exported'));
  await deps.usage.close();
  // Gone at once: its holds stop counting now, not when its lease lapses.
  await deps.instances?.close();
  await deps.requestLog.close().catch(() => undefined);
  await deps.upstream.close();
  await runtime.close();
  if (storage.readDb !== storage.db) await storage.readDb.destroy();
  await storage.db.destroy();
  await storage.keyBus.current?.close();
  await storage.redis?.quit();
  await tracesSent;
}

/** Makes the logger, builds every dependency once, then the app, then listens. */
export async function startGateway(config: GatewayConfig, options: StartOptions = {}): Promise<RunningGateway> {
  const announce = options.announce ?? ((line: string) => process.stdout.write(line + '\n'));
  // A file URL on a link-local or metadata address stops the start before anything opens.
  const upstreamGuard = buildUpstreamGuard(config);
  checkFileUpstreams(config, upstreamGuard);
  // Loaded here, not at the top: a GATEWAY_WORKERS primary imports this module for prepareStore
  // and never serves, so Fastify, the logger and the routes stay out of it (issue 36).
  const [{ buildApp }, { gatewayLogger }] = await Promise.all([import('./app.js'), import('./plugins/gateway-logger.js')]);
  const log = gatewayLogger(config.logLevel);
  let built = false;
  /** Until the app is built, warnings go to stderr, where an operator starting it looks (issue 34). */
  const warn: Warn = (message, error) => {
    if (built) log.warn({ err: error }, message);
    else process.stderr.write(`gateway: warning: ${message}${error instanceof Error ? ` (${error.message})` : ''}\n`);
  };
  const storage = await openStorage(config, announce);
  const runtime = await startCatalog(config, storage, announce, warn);
  let url = '';
  const { deps, retention } = await buildDeps(config, storage, runtime, log, warn, upstreamGuard, () => url);
  if (options.files) deps.files = options.files;
  const app = await buildApp(deps, log);
  built = true;
  await startBackgroundJobs(deps, storage, log);
  url = await listen(app, config);
  retention.start();
  return { app, url, deps, retention, close: () => stopGateway(app, config, deps, storage, runtime, retention) };
}

/**
 * Stops accepting, closes idle keep-alive connections at once (and those that fall idle while
 * the rest drain), lets in-flight requests and streams finish within `deadlineMs`, then cuts
 * whatever is left (issue 13: a stop used to wait out keep-alive, 82 s).
 */
async function drainAndClose(app: FastifyInstance, deadlineMs: number): Promise<void> {
  const server = app.server;
  const closing = app.close();
  server.closeIdleConnections();
  const sweep = setInterval(() => server.closeIdleConnections(), 100);
  const deadline = setTimeout(() => server.closeAllConnections(), deadlineMs);
  try {
    await closing;
  } finally {
    clearInterval(sweep);
    clearTimeout(deadline);
  }
}
