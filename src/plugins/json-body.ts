import { StringDecoder } from 'node:string_decoder';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors.js';
import { assertFiniteNumbers, assertNoDuplicateKeys, scanJsonText, topLevelString } from '../validation/json-shape.js';
import { refusedUnparsed } from './rate-limit.js';

/**
 * Past this many bytes a body is decoded as it arrives and parsed in turns of the event loop of
 * their own (issue 13, the event-loop watchdog): decoding 30 MB of CJK at once took 110 ms, and
 * every other tenant waits while it runs. Smaller bodies are read exactly as Fastify reads them.
 */
const LARGE_BODY_BYTES = 1024 * 1024;

type Done = (error: Error | null, body?: unknown) => void;

/**
 * Every body is read as JSON (clients such as `curl -d` send JSON without a JSON content type),
 * checked for depth, size, ±Infinity and repeated keys before and after JSON.parse (validation/json-shape.ts).
 * `keepText` keeps each body's text on the request, for body logging.
 */
export function registerJsonBody(app: FastifyInstance, bodyLimit: number, keepText: boolean): void {
  app.removeAllContentTypeParsers();
  const parseJson = app.getDefaultJsonParser('error', 'error');
  const parse = (request: FastifyRequest, text: string, done: Done): void => {
    // Body logging (the request log) keeps the text as the client sent it.
    if (keepText) request.gw.requestText = text;
    // Routes that pass the body on as sent (signed thinking blocks) keep its text.
    if (request.routeOptions.config.keepsBodyText) request.gw.bodyText = text;
    // A key whose request window for this model was just refused is refused again unparsed (issue 34).
    const key = request.gw.key;
    if (key && request.server.admission.exhausted.holdsKey(key.id)) {
      const model = topLevelString(text, 'model');
      const refusal = model === undefined ? undefined : refusedUnparsed(request, key, model);
      if (refusal) return done(refusal);
    }
    let shape: { hasExponent: boolean; members: number };
    try {
      shape = scanJsonText(text);
    } catch (error) {
      return done(error as Error);
    }
    parseJson(request, text, (error, body) => {
      if (error) return done(error);
      try {
        assertNoDuplicateKeys(body, shape.members);
        if (shape.hasExponent) assertFiniteNumbers(body);
      } catch (invalid) {
        return done(invalid as Error);
      }
      done(null, body);
    });
  };

  app.addContentTypeParser('*', (request, payload, done) => {
    const declared = Number(request.headers['content-length']);
    if (declared > bodyLimit) return done(tooLarge(bodyLimit));
    const chunks: Buffer[] = [];
    let received = 0;
    let decoder: StringDecoder | undefined;
    let decoded: string[] | undefined;
    const stop = () => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onEnd);
    };
    function onData(chunk: Buffer | string): void {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      received += bytes.length;
      if (received > bodyLimit) {
        stop();
        return done(tooLarge(bodyLimit));
      }
      if (decoder) {
        decoded!.push(decoder.write(bytes));
        return;
      }
      chunks.push(bytes);
      if (received > LARGE_BODY_BYTES) {
        request.gw.largeBody = true;
        // From here on each chunk is decoded as it comes: the cost is spread over the upload.
        decoder = new StringDecoder('utf8');
        decoded = chunks.map((c) => decoder!.write(c));
        chunks.length = 0;
      }
    }
    function onEnd(error?: Error): void {
      stop();
      if (error) return done(Object.assign(error, { statusCode: 400 }));
      if (!Number.isNaN(declared) && received !== declared) {
        return done(new GatewayError('GW_REQ_INVALID_JSON', 'Request body length does not match its Content-Length'));
      }
      if (!decoder) {
        const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, received).toString('utf8');
        return parse(request, text, done);
      }
      decoded!.push(decoder.end());
      // Joining, parsing and what follows each get a turn of their own.
      setImmediate(() => {
        const text = decoded!.join('');
        setImmediate(() => parse(request, text, (parseError, body) => setImmediate(() => done(parseError, body))));
      });
    }
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onEnd);
    payload.resume();
  });
}

const tooLarge = (limit: number) => new GatewayError('GW_REQ_TOO_LARGE', `Request body is larger than the limit of ${limit} bytes`);
