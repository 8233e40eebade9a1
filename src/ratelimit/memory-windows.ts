/** A counter's position in its window, in rate-limiter-flexible's terms (so both stores fit one interface). */
export interface WindowCount {
  consumedPoints: number;
  msBeforeNext: number;
}

interface Window {
  points: number;
  endsAt: number;
}

/**
 * Fixed windows counted in process memory, the embedded default. Synchronous on purpose: the
 * in-process case needs no promise, timer or result object per step (rate-limiter-flexible's
 * memory store costs several of each), and this runs on every limited request. A window opens
 * with its first step; expired windows are swept once per window length.
 */
export class MemoryWindows {
  private readonly windows = new Map<string, Window>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.sweep(), windowMs);
    this.sweeper.unref();
  }

  consume(id: string, points: number): WindowCount {
    const now = this.now();
    let window = this.windows.get(id);
    if (!window || window.endsAt <= now) {
      window = { points: 0, endsAt: now + this.windowMs };
      this.windows.set(id, window);
    }
    window.points += points;
    return { consumedPoints: window.points, msBeforeNext: window.endsAt - now };
  }

  /** Gives points back to an open window (never below zero); nothing to do once it has ended. */
  reward(id: string, points: number): void {
    const window = this.open(id);
    if (window) window.points = Math.max(0, window.points - points);
  }

  /** Counts points without a limit check (usage beyond the reservation). */
  penalty(id: string, points: number): void {
    this.consume(id, points);
  }

  get(id: string): WindowCount | null {
    const window = this.open(id);
    return window ? { consumedPoints: window.points, msBeforeNext: window.endsAt - this.now() } : null;
  }

  private open(id: string): Window | undefined {
    const window = this.windows.get(id);
    return window && window.endsAt > this.now() ? window : undefined;
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, window] of this.windows) if (window.endsAt <= now) this.windows.delete(id);
  }
}
