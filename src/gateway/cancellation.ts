import type { FastifyReply } from 'fastify';

/**
 * What can call an upstream exchange off. Cheaper than an AbortController per request on the hot
 * path (a signal, its event target and listeners cost more than the whole rest of admission);
 * `cancellationOf` adapts an AbortSignal for the callers that have one.
 */
export interface Cancellation {
  readonly cancelled: boolean;
  /** Calls `fn` once on cancellation (at once if already cancelled); returns the unsubscribe. */
  onCancel(fn: () => void): () => void;
}

/** Never cancelled: background work bounded by the channel's own timeouts. */
export const NEVER_CANCELLED: Cancellation = { cancelled: false, onCancel: () => () => undefined };

export function cancellationOf(signal: AbortSignal): Cancellation {
  return {
    get cancelled() {
      return signal.aborted;
    },
    onCancel(fn) {
      if (signal.aborted) {
        fn();
        return () => undefined;
      }
      signal.addEventListener('abort', fn, { once: true });
      return () => signal.removeEventListener('abort', fn);
    },
  };
}

/** Cancelled when the client goes away before its response is complete. */
export class ClientGone implements Cancellation {
  cancelled = false;
  private listeners: (() => void)[] = [];

  constructor(reply: FastifyReply) {
    const raw = reply.raw;
    raw.once('close', () => {
      if (raw.writableFinished) return;
      this.cancelled = true;
      const listeners = this.listeners;
      this.listeners = [];
      for (const fn of listeners) fn();
    });
  }

  onCancel(fn: () => void): () => void {
    if (this.cancelled) {
      fn();
      return () => undefined;
    }
    this.listeners.push(fn);
    return () => {
      const at = this.listeners.indexOf(fn);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }
}

/** Waits `ms`, or less if cancelled first. */
export function pause(ms: number, cancel: Cancellation): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      off();
      resolve();
    }, ms);
    const off = cancel.onCancel(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
