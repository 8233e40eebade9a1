import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors.js';
import { BEARER_KEY_HINT, type KeyLocation } from '../contracts/family-errors.js';
import type { EndpointFamily } from '../contracts/endpoint-family.js';
import type { ApiKey, KeyLookup } from '../keys/key-store.js';
import { actingKeyOf } from './acting-key.js';
import { presentedSecret } from '../keys/presented-secret.js';

/**
 * Authenticates every non-public route. A route whose family declares a key location
 * (`config.errors.key`, api/<family>/errors.ts) takes the key from its query parameter or header
 * first; every route from `Authorization: Bearer` (or `x-api-key`, as Anthropic-style clients send it).
 */
export function registerAuth(app: FastifyInstance): void {
  // A callback hook, not an async one: a cached key is checked without a promise per request.
  app.addHook('onRequest', (request, _reply, done) => {
    const options = request.routeOptions.config;
    if (options.isPublic || request.is404) return done();
    if (options.exists && !options.exists(request)) return done(new GatewayError('GW_ROUTE_NOT_FOUND', `No endpoint ${request.method} ${request.url.split('?')[0]}`));
    // An in-process request acting as a key (the console's playground): judged by the key's id.
    const acting = actingKeyOf(request.raw);
    if (acting !== undefined) {
      app.gateway.keys.authenticateById(acting).then((found) => done(admitKey(request, found, familyOfRoute(request))), done);
      return;
    }
    const location = options.errors?.key;
    const secret = presentedSecret(request, location);
    if (!secret) return done(new GatewayError('GW_AUTH_MISSING_KEY', 'Missing API key. Pass it as the ' + (location?.hint ?? BEARER_KEY_HINT) + '.'));
    const lookup = app.gateway.keys.authenticate(secret);
    if (lookup instanceof Promise) lookup.then((found) => done(admitKey(request, found, familyOfRoute(request))), done);
    else done(admitKey(request, lookup, familyOfRoute(request)));
  });
}

/** The route's family, or the request's where one route serves several (`familyOf`). */
export function familyOfRoute(request: FastifyRequest): EndpointFamily | undefined {
  const config = request.routeOptions.config;
  return config.familyOf?.(request) ?? config.family;
}

/** Sets the request's key when the lookup found a usable one; otherwise the error to answer with. */
function admitKey(request: FastifyRequest, lookup: KeyLookup, family: EndpointFamily | undefined): GatewayError | undefined {
  switch (lookup.status) {
    case 'ok':
      break;
    case 'invalid':
      return new GatewayError('GW_AUTH_INVALID_KEY', 'Invalid API key.');
    case 'revoked':
      return new GatewayError('GW_AUTH_KEY_REVOKED', 'This API key has been revoked.');
    case 'expired':
      return new GatewayError('GW_AUTH_KEY_EXPIRED', 'This API key has expired.');
    case 'disabled':
      return new GatewayError('GW_AUTH_KEY_DISABLED', 'This API key has been disabled.');
  }
  request.gw.key = lookup.key;
  if (!family) return undefined;
  request.gw.family = family;
  return familyRefusal(lookup.key, family);
}

/** Endpoint permissions are families; a key without a list may use them all. */
export function familyRefusal(key: ApiKey, family: EndpointFamily): GatewayError | undefined {
  if (key.endpoints && !key.endpoints.includes(family)) {
    return new GatewayError('GW_PERMISSION_DENIED', `This API key may not use the ${family} endpoints.`);
  }
  return undefined;
}

/** Model permissions are exact ids: no prefixes, no wildcards. */
export function assertModelAllowed(key: ApiKey | undefined, model: string): void {
  if (key?.models && !key.models.includes(model)) {
    throw new GatewayError('GW_PERMISSION_DENIED', `This API key may not use the model '${model}'.`);
  }
}
