import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { Cancellation } from '../gateway/cancellation.js';

/** How the response ended, read when the connection closed. */
export interface ResponseEnd {
  /** False when the client left before the whole response was written. */
  finished: boolean;
}

/** Gets the request and reply as arguments, so a hook can be a plain function rather than a closure per request. */
export type EndHook = (end: ResponseEnd, request: FastifyRequest, reply: FastifyReply) => void | Promise<void>;

const kEndState = Symbol('gateway.endState');
type TrackedResponse = ServerResponse & { [kEndState]?: EndState };

/**
 * Per request (`request.gw.ending`): the end hooks, where the request stands, and the client's
 * departure as a Cancellation (upstream calls stop when the client leaves before the end).
 */
export class EndState implements Cancellation {
  readonly hooks: EndHook[] = [];
  /** Set at close. */
  end: ResponseEnd | undefined = undefined;
  /** True while a model route's handler has not returned. */
  handling = false;
  /** True when the connection closed before the whole response was written. */
  cancelled = false;
  private cancelListeners: (() => void)[] | undefined;

  constructor(
    readonly request: FastifyRequest,
    readonly reply: FastifyReply,
  ) {}

  onCancel(fn: () => void): () => void {
    if (this.cancelled) {
      fn();
      return () => undefined;
    }
    (this.cancelListeners ??= []).push(fn);
    return () => {
      const listeners = this.cancelListeners;
      const at = listeners ? listeners.indexOf(fn) : -1;
      if (at >= 0) listeners!.splice(at, 1);
    };
  }

  /** The response's one close listener: `this` is the response (no closure per request). */
  static onClose(this: TrackedResponse): void {
    const state = this[kEndState]!;
    const finished = this.writableFinished;
    state.end = { finished };
    if (!finished) {
      state.cancelled = true;
      const listeners = state.cancelListeners;
      state.cancelListeners = undefined;
      if (listeners) for (const fn of listeners) fn();
    }
    if (!state.handling) runHooks(state);
  }
}

/**
 * Runs `fn` once the response is over (sent, failed or abandoned by the client) AND the route
 * handler has returned. A client that leaves mid-stream closes the connection before the stream
 * loop has stored the stream's usage; waiting for the handler makes the usage final. Whether the
 * response finished is read at close (ending the stream afterwards would blur it). All hooks of a
 * request share one close listener and no promise.
 */
export function onRequestEnd(request: FastifyRequest, reply: FastifyReply, fn: EndHook): void {
  endStateOf(request, reply).hooks.push(fn);
}

/** The request's end state, created with its one close listener on first use. */
export function endStateOf(request: FastifyRequest, reply: FastifyReply): EndState {
  const raw = reply.raw as TrackedResponse;
  // A request refused before the context hook ran (no gw) keeps its state on the response alone.
  const existing = request.gw?.ending ?? raw[kEndState];
  if (existing) return existing;
  const own = new EndState(request, reply);
  if (request.gw) request.gw.ending = own;
  raw[kEndState] = own;
  raw.on('close', EndState.onClose);
  return own;
}

function runHooks(state: EndState): void {
  const { end, request, reply } = state;
  for (const hook of state.hooks) {
    try {
      const result = hook(end!, request, reply);
      if (result) result.catch((error: unknown) => request.log.error({ err: error }, 'request end bookkeeping failed'));
    } catch (error) {
      request.log.error({ err: error }, 'request end bookkeeping failed');
    }
  }
}

/** Wraps every model route's handler so the end hooks wait for it to return. */
export function registerRequestEnd(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.config?.family) return;
    const handler = route.handler as (this: FastifyInstance, ...args: Parameters<RouteHandlerMethod>) => unknown;
    route.handler = function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      const own = endStateOf(request, reply);
      own.handling = true;
      try {
        const result = handler.call(this, request, reply);
        if (result instanceof Promise) return result.finally(() => handlerReturned(own));
        handlerReturned(own);
        return result;
      } catch (error) {
        handlerReturned(own);
        throw error;
      }
    } as RouteHandlerMethod;
  });
}

function handlerReturned(state: EndState): void {
  state.handling = false;
  if (state.end) runHooks(state);
}
