/**
 * The request windows this instance has just seen refused, per key and model, until they end
 * (issue 34: a key past its rpm sent 2 MB bodies in parallel, and each was parsed, validated and
 * counted only to be refused; meanwhile every other tenant waited). With this memo the next body
 * of that key and model is refused on a look at its `model` (plugins/json-body.ts), unparsed.
 *
 * Only a refusal writes here, never a count that merely reached the limit, and anything that gives
 * a request back to the window on this instance (a token refusal) or a changed limit forgets the
 * entry: the memo may let a request through to the counters, which judge as before. Per instance,
 * like the parse it saves: a request another instance gives back to a shared window is not seen
 * here, so at worst this instance refuses that one request's room until the window ends.
 */
export class ExhaustedWindows {
  /** Key id → model → the refused window: when it ends (epoch ms) and the limit it was refused at. */
  private readonly byKey = new Map<string, Map<string, { until: number; limit: number }>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Whether any window of this key is remembered (the one check on every request with a body). */
  holdsKey(keyId: string): boolean {
    return this.byKey.has(keyId);
  }

  refused(keyId: string, model: string, limit: number, until: number): void {
    let models = this.byKey.get(keyId);
    if (!models) this.byKey.set(keyId, (models = new Map()));
    models.set(model, { until, limit });
    if (this.byKey.size > MAX_KEYS) this.sweep();
  }

  /** Milliseconds left of the refused window for this key, model and current limit; 0 when none. */
  remainingMs(keyId: string, model: string, limit: number | null): number {
    const models = this.byKey.get(keyId);
    const entry = models?.get(model);
    if (!entry) return 0;
    const left = entry.until - this.now();
    if (left > 0 && entry.limit === limit) return left;
    this.forget(keyId, model);
    return 0;
  }

  forget(keyId: string, model: string): void {
    const models = this.byKey.get(keyId);
    if (!models?.delete(model)) return;
    if (models.size === 0) this.byKey.delete(keyId);
  }

  private sweep(): void {
    const now = this.now();
    for (const [keyId, models] of this.byKey) {
      for (const [model, entry] of models) if (entry.until <= now) models.delete(model);
      if (models.size === 0) this.byKey.delete(keyId);
    }
  }
}

/** Past this many keys with refused windows, ended windows are swept on the next refusal. */
const MAX_KEYS = 10_000;
