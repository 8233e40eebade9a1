import type { Redis } from 'ioredis';

/** The pub/sub channel every instance listens on; the message is the changed key's id (or prefix). */
export const KEY_CACHE_CHANNEL = 'gateway:key-cache:invalidate';

export interface KeyCacheBusOptions {
  /** The shared connection (`deps.redis`), used to publish. */
  redis: Redis;
  /** What to drop when any instance changes a key (`keys.invalidate()`). */
  invalidate: () => void;
  onError?: (error: unknown) => void;
  channel?: string;
}

/**
 * Tells every instance that a key changed, so a revoked key is refused everywhere at once
 * instead of when each instance's lookup cache runs out. Pub/sub is fire-and-forget: a message
 * sent while an instance is disconnected is lost, so a subscriber that (re)connects drops its
 * cache too, and the cache's own short lifetime (key-store.ts) bounds what a lost message costs.
 */
export class KeyCacheBus {
  private readonly channel: string;
  /** A connection in subscriber mode can run no other command, so it is a connection of its own. */
  private readonly subscriber: Redis;
  private closed = false;

  constructor(private readonly options: KeyCacheBusOptions) {
    this.channel = options.channel ?? KEY_CACHE_CHANNEL;
    this.subscriber = options.redis.duplicate({ maxRetriesPerRequest: null });
    this.subscriber.on('message', (channel: string) => {
      if (channel === this.channel) options.invalidate();
    });
    // Messages published while we were away are gone: start again from the database.
    this.subscriber.on('ready', () => options.invalidate());
    this.subscriber.on('error', (error: unknown) => options.onError?.(error));
  }

  /**
   * Subscribes; waits at most `timeoutMs` so that a Redis that is down does not stop the gateway
   * from starting (the subscription completes when Redis comes back; until then the cache
   * lifetime bounds how long a revoked key is still accepted).
   */
  async start(timeoutMs = 5_000): Promise<void> {
    const subscribed = this.subscriber.subscribe(this.channel).then(
      () => 'subscribed' as const,
      (error: unknown) => {
        this.options.onError?.(error);
        return 'failed' as const;
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const outcome = await Promise.race([subscribed, timeout]);
    clearTimeout(timer);
    if (outcome === 'timeout') this.options.onError?.(new Error(`Redis subscription to ${this.channel} not ready after ${timeoutMs} ms; it completes when Redis is reachable`));
  }

  /** Called from KeyStore's onChange; never throws (the key change itself has succeeded). */
  publish(keyId: string): void {
    if (this.closed) return;
    this.options.redis.publish(this.channel, keyId).catch((error: unknown) => this.options.onError?.(error));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }
}
