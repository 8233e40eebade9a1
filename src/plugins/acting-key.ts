import { Readable } from 'node:stream';

/**
 * The key an in-process request acts as (issue 35): the console's playground sends a signed-in
 * person's chat through the gateway's own endpoint with `app.inject`, as one of their keys, with
 * no secret anywhere. The mark is a Symbol on the injected request object, so no request from the
 * network can carry it; the auth hook judges the key by id exactly as it judges a secret's key.
 */
export const ACTING_KEY: unique symbol = Symbol('gateway.actingKey');

export function actingKeyOf(raw: object): string | undefined {
  const value = (raw as { [ACTING_KEY]?: unknown })[ACTING_KEY];
  return typeof value === 'string' ? value : undefined;
}

/**
 * A request class for `app.inject({ Request })` whose instances carry the key id (light-my-request
 * builds the injected request on top of this class's prototype: a Readable, like its own).
 */
export function requestActingAs(keyId: string): object {
  class ActingRequest extends Readable {}
  Object.defineProperty(ActingRequest.prototype, ACTING_KEY, { value: keyId });
  return ActingRequest;
}
