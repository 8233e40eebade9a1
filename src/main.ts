import type { FastifyInstance } from 'fastify';
import type { GatewayConfig } from './config/schema.js';
import { connectDatabase, withStartupLock, type Db } from './db/connect.js';
import { KeyStore } from './keys/key-store.js';
import { KeyCacheBus } from './keys/key-cache-bus.js';
import { ensureAdminToken, ensureBootstrapKey } from './keys/bootstrap.js';
import { buildChannels } from './gateway/build-channels.js';
import { UpstreamClient } from './gateway/upstream-client.js';
import { buildApp } from './app.js';
import type { GatewayDeps } from './plugins/request-context.js';
import { connectRedis } from './db/redis.js';
import { UsageRecorder } from './usage/usage-recorder.js';
import { CircuitBreakers, DEFAULT_CIRCUIT } from './gateway/circuit-breaker.js';
import { DEFAULT_RETRY_POLICY } from './gateway/retry-policy.js';

export interface RunningGateway {
  app: FastifyInstance;
  /** Base URL the gateway listens on, e.g. http://127.0.0.1:8080 */
  url: string;
  deps: GatewayDeps;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Where first-start secrets are printed (stdout by default). */
  announce?: (line: string) => void;
}

/**
 * Migrations and first-start secrets, once. `startGateway` does this itself; a cluster primary
 * (GATEWAY_WORKERS) does it before forking so workers never race on an empty database.
 */
export async function prepareStore(config: GatewayConfig, announce: (line: string) => void): Promise<void> {
  const db = await connectDatabase(config);
  try {
    await withStartupLock(db, async () => {
      await ensureBootstrapKey(new KeyStore(db), config.bootstrapKey, announce);
      await ensureAdminToken(db, config.adminToken, announce);
    });
  } finally {
    await db.destroy();
  }
}

/** Builds every dependency once, then the app, then listens. */
export async function startGateway(config: GatewayConfig, options: StartOptions = {}): Promise<RunningGateway> {
  const announce = options.announce ?? ((line: string) => process.stdout.write(line + '\n'));
  const db: Db = await connectDatabase(config);
  const redis = config.redisUrl ? connectRedis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 }) : undefined;
  let keyCacheBus: KeyCacheBus | undefined;
  const keys = new KeyStore(db, Date.now, (keyId) => keyCacheBus?.publish(keyId));
  await withStartupLock(db, async () => {
    await ensureBootstrapKey(keys, config.bootstrapKey, announce);
    await ensureAdminToken(db, config.adminToken, announce);
  });

  const { channels, simulators } = await buildChannels(config.file.channels ?? [], config.file.simulator);
  const upstream = new UpstreamClient();
  const routing = config.file.routing ?? {};
  const usage = new UsageRecorder(db);
  let listenUrl = '';
  const deps: GatewayDeps = {
    config,
    db,
    keys,
    redis,
    usage,
    channels,
    upstream,
    circuits: new CircuitBreakers({
      threshold: routing.circuit_threshold ?? DEFAULT_CIRCUIT.threshold,
      coolDownMs: routing.circuit_cool_down_ms ?? DEFAULT_CIRCUIT.coolDownMs,
    }),
    retryPolicy: {
      baseDelayMs: routing.retry_base_delay_ms ?? DEFAULT_RETRY_POLICY.baseDelayMs,
      maxDelayMs: routing.retry_max_delay_ms ?? DEFAULT_RETRY_POLICY.maxDelayMs,
      maxWaitMs: routing.retry_max_wait_ms ?? DEFAULT_RETRY_POLICY.maxWaitMs,
    },
    simulators,
    publicUrl: () => config.publicUrl ?? listenUrl,
    now: Date.now,
  };
  const app = await buildApp(deps);
  if (redis) {
    // Subscribed before listening, so no revocation made elsewhere after this start is missed.
    keyCacheBus = new KeyCacheBus({ redis, invalidate: () => keys.invalidate(), onError: (err) => app.log.warn({ err }, 'key-cache bus') });
    await keyCacheBus.start();
  }
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  listenUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    app,
    url: listenUrl,
    deps,
    async close() {
      await drainAndClose(app, config.shutdownTimeoutMs ?? 25_000);
      await usage.close();
      await upstream.close();
      await Promise.all([...simulators.values()].map((s) => s.close()));
      await db.destroy();
      await keyCacheBus?.close();
      await redis?.quit();
    },
  };
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
