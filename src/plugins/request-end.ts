import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';

/** How the response ended, read when the connection closed. */
export interface ResponseEnd {
  /** False when the client left before the whole response was written. */
  finished: boolean;
}

type EndHook = (end: ResponseEnd) => void | Promise<void>;

/** Per request (`request.gw.ending`): the hooks and where the request stands. */
export interface EndState {
  hooks: EndHook[];
  /** Set at close. */
  end: ResponseEnd | undefined;
  /** True while a model route's handler has not returned. */
  handling: boolean;
}

/**
 * Runs `fn` once the response is over (sent, failed or abandoned by the client) AND the route
 * handler has returned. A client that leaves mid-stream closes the connection before the stream
 * loop has stored the stream's usage; waiting for the handler makes the usage final. Whether the
 * response finished is read at close (ending the stream afterwards would blur it). All hooks of a
 * request share one close listener and no promise.
 */
export function onRequestEnd(request: FastifyRequest, reply: FastifyReply, fn: EndHook): void {
  stateOf(request, reply).hooks.push(fn);
}

/** The request's end state, created with its one close listener on first use. */
function stateOf(request: FastifyRequest, reply: FastifyReply): EndState {
  const existing = request.gw?.ending;
  if (existing) return existing;
  const own: EndState = { hooks: [], end: undefined, handling: false };
  // A request refused before the context hook ran (no gw) still gets its hooks.
  if (request.gw) request.gw.ending = own;
  const raw = reply.raw;
  raw.once('close', () => {
    own.end = { finished: raw.writableFinished };
    if (!own.handling) runHooks(request, own);
  });
  return own;
}

function runHooks(request: FastifyRequest, state: EndState): void {
  const end = state.end!;
  for (const hook of state.hooks) {
    try {
      const result = hook(end);
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
      const own = stateOf(request, reply);
      own.handling = true;
      const done = (): void => {
        own.handling = false;
        if (own.end) runHooks(request, own);
      };
      try {
        const result = handler.call(this, request, reply);
        if (result instanceof Promise) return result.finally(done);
        done();
        return result;
      } catch (error) {
        done();
        throw error;
      }
    } as RouteHandlerMethod;
  });
}
