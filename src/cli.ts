#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=6 --heap-growing-percent=30
import { loadConfig } from './config/load.js';
import { connectRedis } from './db/redis.js';
import { connectDatabase } from './db/connect.js';
import { KEY_CACHE_CHANNEL } from './keys/key-cache-bus.js';
import { KeyStore } from './keys/key-store.js';
import cluster from 'node:cluster';
import { RateLimiterClusterMaster } from 'rate-limiter-flexible';
import { prepareStore, startGateway } from './main.js';

const USAGE = `usage:
  gateway start                      start the gateway (PORT, HOST, GATEWAY_DATA_DIR, GATEWAY_CONFIG, ...)
  gateway keys create [name] [--models a,b] [--endpoints chat-completions,...]
  gateway keys list
  gateway keys revoke <id|prefix>`;

async function main(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  const config = loadConfig();
  if (command === 'start') {
    if (config.workers > 1 && cluster.isPrimary) return startPrimary(config);
    const gateway = await startGateway(config, cluster.isWorker ? { announce: () => undefined } : {});
    if (cluster.isWorker) {
      process.send?.({ listening: gateway.url });
    } else {
      process.stdout.write(`gateway listening on ${gateway.url} (docs at ${gateway.url}/docs)\n`);
    }
    // The first signal drains (within GATEWAY_SHUTDOWN_TIMEOUT_MS) and exits 0; a second one exits at once.
    let stopping = false;
    const stop = async () => {
      if (stopping) process.exit(1);
      stopping = true;
      await gateway.close();
      process.exit(0);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    return -1;
  }
  if (command === 'keys') {
    const db = await connectDatabase(config);
    // Running instances drop their cached copy of a key changed here (key-cache-bus.ts).
    const redis = config.redisUrl ? connectRedis(config.redisUrl, { maxRetriesPerRequest: 2 }) : undefined;
    const keys = new KeyStore(db, Date.now, (keyId) => void redis?.publish(KEY_CACHE_CHANNEL, keyId).catch(() => undefined));
    try {
      return await keysCommand(keys, sub, rest);
    } finally {
      await db.destroy();
      await redis?.quit().catch(() => undefined);
    }
  }
  process.stderr.write(USAGE + '\n');
  return command ? 2 : 0;
}

/**
 * GATEWAY_WORKERS=N: the primary prepares the store once, hosts the cluster rate limiter (exact
 * limits across workers without Redis), forks N workers sharing the port and replaces any that die.
 */
async function startPrimary(config: ReturnType<typeof loadConfig>): Promise<number> {
  await prepareStore(config, (line) => process.stdout.write(line + '\n'));
  new RateLimiterClusterMaster();
  let listening = 0;
  let stopping = false;
  const fork = () =>
    cluster.fork().on('message', (message: { listening?: string }) => {
      if (message.listening && ++listening === config.workers) {
        process.stdout.write(`gateway listening on ${message.listening} with ${config.workers} workers (docs at ${message.listening}/docs)\n`);
      }
    });
  for (let i = 0; i < config.workers; i++) fork();
  cluster.on('exit', () => {
    if (!stopping) fork();
  });
  const stop = () => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill('SIGTERM');
    cluster.disconnect(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return -1;
}

async function keysCommand(keys: KeyStore, sub: string | undefined, args: string[]): Promise<number> {
  const flag = (name: string) => {
    const at = args.indexOf(`--${name}`);
    return at >= 0 ? args[at + 1]?.split(',').filter(Boolean) : undefined;
  };
  switch (sub) {
    case 'create': {
      const name = args[0] && !args[0].startsWith('--') ? args[0] : 'cli';
      const { key, secret } = await keys.create({ name, models: flag('models') ?? null, endpoints: (flag('endpoints') as never) ?? null });
      process.stdout.write(`${key.id}\t${secret}\n`);
      return 0;
    }
    case 'list':
      for (const key of await keys.list()) {
        const state = key.revokedAt ? 'revoked' : key.disabledAt ? 'disabled' : 'active';
        process.stdout.write(`${key.id}\t${key.prefix}…\t${key.name}\t${state}\n`);
      }
      return 0;
    case 'revoke':
      if (!args[0]) break;
      if (await keys.revoke(args[0])) {
        process.stdout.write(`revoked ${args[0]}\n`);
        return 0;
      }
      process.stderr.write(`no active key ${args[0]}\n`);
      return 1;
    default:
      break;
  }
  process.stderr.write(USAGE + '\n');
  return 2;
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
