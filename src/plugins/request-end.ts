import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';

/** How the response ended, read when the connection closed. */
export interface ResponseEnd {
  /** False when the client left before the whole response was written. */
  finished: boolean;
}

/**
 * Runs `fn` once the response is over (sent, failed or abandoned by the client) AND the route
 * handler has returned. A client that leaves mid-stream closes the connection before the stream
 * loop has stored the stream's usage; waiting for the handler makes the usage final. Whether the
 * response finished is read at close (ending the stream afterwards would blur it).
 */
export function onRequestEnd(request: FastifyRequest, reply: FastifyReply, fn: (end: ResponseEnd) => void | Promise<void>): void {
  reply.raw.once('close', () => {
    const end: ResponseEnd = { finished: reply.raw.writableFinished };
    Promise.resolve(request.gw.handling)
      .then(() => fn(end))
      .catch((error: unknown) => request.log.error({ err: error }, 'request end bookkeeping failed'));
  });
}

/** Wraps every model route's handler so `request.gw.handling` settles when the handler returns. */
export function registerRequestEnd(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.config?.family) return;
    const handler = route.handler as (this: FastifyInstance, ...args: Parameters<RouteHandlerMethod>) => unknown;
    route.handler = function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      let done: () => void = () => undefined;
      request.gw.handling = new Promise<void>((resolve) => (done = resolve));
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
