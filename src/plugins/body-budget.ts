import type { ServerResponse } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../errors.js';

const kHeld = Symbol('gateway.bodyBytesHeld');
const kKey = Symbol('gateway.bodyBytesKey');
type HoldingResponse = ServerResponse & { [kHeld]?: number; [kKey]?: string | undefined };

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
 * timeout (GATEWAY_REQUEST_TIMEOUT_MS, app.ts). Routes that stream their body to storage
 * (`streamsBody`: file uploads) hold none of it and are not charged.
 *
 * One API key holds at most `perKeyBytes` of it (GATEWAY_MAX_BODY_BYTES_PER_KEY, an eighth of the
 * cap by default; issue 34): past it that key alone gets 429, while other tenants' bodies still
 * fit. A key with nothing in flight may always send one body. Registered after authentication.
 */
export function registerBodyBudget(app: FastifyInstance, capBytes: number, bodyLimit: number, perKeyBytes: number): BodyBudget {
  let held = 0;
  const heldByKey = new Map<string, number>();
  // `this` is the response: no closure per request.
  function release(this: HoldingResponse): void {
    const bytes = this[kHeld]!;
    held -= bytes;
    const key = this[kKey];
    if (key === undefined) return;
    const left = heldByKey.get(key)! - bytes;
    if (left <= 0) heldByKey.delete(key);
    else heldByKey.set(key, left);
  }
  const overloaded = () => new GatewayError('GW_OVERLOADED', 'The gateway is receiving too many request bodies at once; retry shortly', { retryAfterSeconds: 1 });
  const keyOverloaded = (prefix: string) =>
    new GatewayError('GW_RATE_LIMITED', `This API key (${prefix}…) is sending more request bodies at once than its share of the gateway (${perKeyBytes} bytes); retry when they have arrived.`, { retryAfterSeconds: 1 });
  /** The refusal for `bytes` more, or undefined when they fit. */
  const refusal = (keyId: string | undefined, prefix: string, bytes: number): GatewayError | undefined => {
    if (held + bytes > capBytes) return overloaded();
    if (keyId === undefined) return undefined;
    const mine = heldByKey.get(keyId);
    return mine !== undefined && mine + bytes > perKeyBytes ? keyOverloaded(prefix) : undefined;
  };
  const hold = (raw: HoldingResponse, keyId: string | undefined, bytes: number): void => {
    if (raw[kHeld] === undefined) {
      raw.on('close', release);
      raw[kKey] = keyId;
    }
    raw[kHeld] = (raw[kHeld] ?? 0) + bytes;
    held += bytes;
    if (keyId !== undefined) heldByKey.set(keyId, (heldByKey.get(keyId) ?? 0) + bytes);
  };
  app.addHook('onRequest', (request, reply, done) => {
    const length = request.headers['content-length'];
    if (length === undefined || request.routeOptions.config.streamsBody) return done();
    const bytes = Math.min(Number(length) || 0, bodyLimit);
    if (bytes === 0) return done();
    const key = request.gw?.key;
    const refused = refusal(key?.id, key?.prefix ?? '', bytes);
    if (refused) return done(refused);
    hold(reply.raw, key?.id, bytes);
    done();
  });
  app.addHook('preParsing', (request, reply, payload, done) => {
    if (request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] === undefined || request.routeOptions.config.streamsBody) return done(null, payload);
    const raw = reply.raw as HoldingResponse;
    const key = request.gw?.key;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding: BufferEncoding, next: TransformCallback) {
        const refused = refusal(key?.id, key?.prefix ?? '', chunk.length);
        if (refused) return next(refused);
        hold(raw, key?.id, chunk.length);
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
