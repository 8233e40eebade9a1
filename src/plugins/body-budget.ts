import type { ServerResponse } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../errors.js';

const kHeld = Symbol('gateway.bodyBytesHeld');
type HoldingResponse = ServerResponse & { [kHeld]?: number };

/** What the instance holds of request bodies now (for metrics and tests). */
export interface BodyBudget {
  readonly bytesInFlight: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    bodyBudget: BodyBudget;
  }
}

/**
 * A cap on the bytes of request bodies this instance holds at once (issue 13): 150 clients each
 * sending all but the last bytes of a 32 MB body must not take the heap. A request is charged
 * its declared `Content-Length` from the moment its headers arrive until its response is over
 * (the parsed body lives that long); past the cap it is refused at once with 503 and
 * `Retry-After`, before any byte of it is read. A chunked body, whose size is unknown, is charged
 * as its bytes arrive and refused when they pass the cap. Slow bodies are cut by the request
 * timeout (GATEWAY_REQUEST_TIMEOUT_MS, app.ts).
 */
export function registerBodyBudget(app: FastifyInstance, capBytes: number, bodyLimit: number): BodyBudget {
  let held = 0;
  // `this` is the response: no closure per request.
  function release(this: HoldingResponse): void {
    held -= this[kHeld]!;
  }
  const overloaded = () => new GatewayError('GW_OVERLOADED', 'The gateway is receiving too many request bodies at once; retry shortly', { retryAfterSeconds: 1 });
  const hold = (raw: HoldingResponse, bytes: number): void => {
    if (raw[kHeld] === undefined) raw.on('close', release);
    raw[kHeld] = (raw[kHeld] ?? 0) + bytes;
    held += bytes;
  };
  app.addHook('onRequest', (request, reply, done) => {
    const length = request.headers['content-length'];
    if (length === undefined) return done();
    const bytes = Math.min(Number(length) || 0, bodyLimit);
    if (bytes === 0) return done();
    if (held + bytes > capBytes) return done(overloaded());
    hold(reply.raw, bytes);
    done();
  });
  app.addHook('preParsing', (request, reply, payload, done) => {
    if (request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] === undefined) return done(null, payload);
    const raw = reply.raw as HoldingResponse;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding: BufferEncoding, next: TransformCallback) {
        if (held + chunk.length > capBytes) return next(overloaded());
        hold(raw, chunk.length);
        next(null, chunk);
      },
    });
    done(null, payload.pipe(counted));
  });
  return {
    get bytesInFlight() {
      return held;
    },
  };
}
