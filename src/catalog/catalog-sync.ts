import type { CatalogStore } from './catalog-store.js';

export interface CatalogSyncOptions {
  /** Reads the stored models, prices and channels and applies them on this instance. */
  reload: () => Promise<void>;
  refreshMs?: number;
  onError?: (error: unknown) => void;
}

/** How often an instance looks at the revision: a change made elsewhere applies here within this. */
const REFRESH_MS = 2_000;

/**
 * Keeps this instance's catalog in step with the database (issue 21): every `refreshMs` it reads
 * the revision row and reloads only when another instance (or this one) moved it. A failed read
 * keeps the last catalog in force and tries again at the next tick.
 */
export class CatalogSync {
  private seen: string | null | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly store: CatalogStore,
    private readonly options: CatalogSyncOptions,
  ) {}

  /** Reloads if the revision moved since the last load (or nothing was loaded yet). */
  check(): Promise<void> {
    this.running ??= this.checkOnce().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Reloads now: after this instance's own write, which moved the revision. */
  async refresh(): Promise<void> {
    await this.running;
    this.seen = undefined;
    await this.check();
  }

  start(): void {
    this.timer = setInterval(() => void this.check().catch((error: unknown) => this.options.onError?.(error)), this.options.refreshMs ?? REFRESH_MS);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
  }

  private async checkOnce(): Promise<void> {
    const revision = await this.store.revision();
    if (this.seen !== undefined && revision === this.seen) return;
    await this.options.reload();
    this.seen = revision;
  }
}
