import type { Redis } from 'ioredis';
import type { LimitKind } from './limiters.js';

/** A per-minute window a key used up: the console reads it as "rate-limited now" (issue 35). */
export interface LimitedWindow {
  kind: LimitKind;
  model: string;
  limit: number;
  /** Epoch ms when the window ends and the key may send again. */
  until: number;
}

const PREFIX = 'gw:rl:limited-now:';
/** Past this many noted keys, the ended windows are swept on the next note. */
const SWEEP_AT = 10_000;

/**
 * Which keys have a per-minute window used up right now: noted by admission when a step leaves a
 * window at 0 or refuses one, read when keys are shown. Never read on the request path. With
 * Redis the note is shared (a key whose window ends in the TTL), so every instance's console
 * says the same; otherwise this instance's memory is the whole truth (it is the only counter).
 */
export class RateLimitedKeys {
  private readonly local = new Map<string, LimitedWindow>();

  constructor(
    private readonly redis: Redis | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  note(keyId: string, window: LimitedWindow): void {
    const at = this.now();
    if (window.until <= at) return;
    const known = this.local.get(keyId);
    if (known && known.until >= window.until) return;
    if (this.local.size >= SWEEP_AT) for (const [id, w] of this.local) if (w.until <= at) this.local.delete(id);
    this.local.set(keyId, window);
    // Best effort: a lost note only leaves another instance's console a minute behind.
    this.redis?.set(`${PREFIX}${keyId}`, JSON.stringify(window), 'PX', Math.ceil(window.until - at)).catch(() => undefined);
  }

  /** The windows of these keys that are still used up. */
  async of(keyIds: readonly string[]): Promise<Map<string, LimitedWindow>> {
    const at = this.now();
    const found = new Map<string, LimitedWindow>();
    for (const id of keyIds) {
      const window = this.local.get(id);
      if (window && window.until > at) found.set(id, window);
    }
    if (this.redis && keyIds.length > 0) {
      const shared = await this.redis.mget(keyIds.map((id) => `${PREFIX}${id}`)).catch(() => [] as (string | null)[]);
      shared.forEach((text, index) => {
        if (!text) return;
        const window = JSON.parse(text) as LimitedWindow;
        const id = keyIds[index]!;
        if (window.until > at && window.until > (found.get(id)?.until ?? 0)) found.set(id, window);
      });
    }
    return found;
  }
}
