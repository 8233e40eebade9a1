/**
 * Per-channel circuit breakers. A channel whose requests fail `threshold` times in a row is
 * parked for `coolDownMs`; after that one probe request is let through: success closes the
 * circuit, failure parks it again.
 */
export interface CircuitOptions {
  threshold: number;
  coolDownMs: number;
}

interface CircuitState {
  consecutiveFailures: number;
  /** While now < openUntil the circuit is open. */
  openUntil: number;
  /** A probe is in flight after the cool-down; others keep skipping the channel meanwhile. */
  isProbing: boolean;
}

export const DEFAULT_CIRCUIT: CircuitOptions = { threshold: 5, coolDownMs: 30_000 };

export class CircuitBreakers {
  private readonly states = new Map<string, CircuitState>();
  /** Channels at or past the failure threshold: while none is, routing skips the circuit checks. */
  private tripped = 0;

  constructor(
    private readonly options: CircuitOptions = DEFAULT_CIRCUIT,
    private readonly now: () => number = Date.now,
  ) {}

  private state(channel: string): CircuitState {
    let state = this.states.get(channel);
    if (!state) {
      state = { consecutiveFailures: 0, openUntil: 0, isProbing: false };
      this.states.set(channel, state);
    }
    return state;
  }

  /** Whether a request may go to the channel now; claims the probe slot when half-open. */
  tryAcquire(channel: string): boolean {
    const state = this.state(channel);
    if (state.consecutiveFailures < this.options.threshold) return true;
    if (this.now() < state.openUntil || state.isProbing) return false;
    state.isProbing = true;
    return true;
  }

  /** Whether any channel's circuit is open or half-open. */
  get anyTripped(): boolean {
    return this.tripped > 0;
  }

  /** For metrics: 0 closed, 1 half-open (a probe may pass or is passing), 2 open. */
  stateOf(channel: string): 0 | 1 | 2 {
    const state = this.states.get(channel);
    if (!state || state.consecutiveFailures < this.options.threshold) return 0;
    return this.now() < state.openUntil ? 2 : 1;
  }

  isOpen(channel: string): boolean {
    const state = this.states.get(channel);
    return state !== undefined && state.consecutiveFailures >= this.options.threshold && (this.now() < state.openUntil || state.isProbing);
  }

  onSuccess(channel: string): void {
    const state = this.state(channel);
    if (state.consecutiveFailures >= this.options.threshold) this.tripped--;
    state.consecutiveFailures = 0;
    state.openUntil = 0;
    state.isProbing = false;
  }

  /**
   * Ends a request that neither succeeded nor failed upstream (the client left, the translator
   * refused the request before sending): not counted, but a probe slot it held is given back, or
   * the half-open channel would never be tried again (issue 14).
   */
  release(channel: string): void {
    const state = this.states.get(channel);
    if (state) state.isProbing = false;
  }

  onFailure(channel: string): void {
    const state = this.state(channel);
    if (++state.consecutiveFailures === this.options.threshold) this.tripped++;
    state.isProbing = false;
    if (state.consecutiveFailures >= this.options.threshold) state.openUntil = this.now() + this.options.coolDownMs;
  }
}
