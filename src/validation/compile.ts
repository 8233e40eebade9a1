import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { TSchema, Static } from 'typebox';
import { GatewayError } from '../errors.js';

/**
 * One Ajv instance for the whole gateway. Types are never coerced ("1" is not a number) and
 * unknown fields are kept: the spec's fields are strict, any others pass on to upstreams.
 * `useDefaults` fills the defaults the spec states (e.g. max_tokens 8192 on /v1/messages).
 * `unicode: false`: string lengths are UTF-16 code units (`.length`, constant time), not code
 * points: counting code points walks the whole string, 80 ms for a 30 MB text with `minLength: 1`
 * on the one event loop (issue 13). Only characters outside the BMP (emoji) count as two.
 */
const ajv = new Ajv({
  allErrors: false,
  coerceTypes: false,
  useDefaults: true,
  removeAdditional: false,
  strict: false,
  discriminator: true,
  verbose: true,
  // Deprecated in Ajv 8 but still honoured; its start-up notice is the one warning dropped.
  unicode: false,
  logger: { log: console.log, warn: (...args: unknown[]) => (String(args[0]).includes('option unicode') ? undefined : console.warn(...args)), error: console.error },
});

export type Validator<T> = (value: unknown) => T;

/** Schema keyword with a pattern's rule in words ("must be …"), used in its 400 message instead of the regex. */
export const PATTERN_RULE = 'x-pattern-rule';

/**
 * A validator for a schema; the returned function throws a 400 GatewayError naming the field and
 * the rule. The schema is compiled at its first use, once (issue 24): Ajv's generated code for
 * every endpoint family and admin route is memory, and half a second of start-up, that a gateway
 * serving only chat never needs. The first request of a route pays its compilation, once.
 */
export function compileValidator<S extends TSchema>(schema: S): Validator<Static<S>> {
  let validate: ValidateFunction | undefined;
  return (value: unknown) => {
    validate ??= ajv.compile(schema);
    if (validate(value)) return value as Static<S>;
    const error = pickMostSpecific(validate.errors ?? []);
    throw new GatewayError('GW_REQ_INVALID_PARAM', describeError(error), { param: error ? fieldPath(error) : undefined });
  };
}

/** With unions, Ajv reports every branch; the deepest path is the one the client got wrong. */
function pickMostSpecific(errors: ErrorObject[]): ErrorObject | undefined {
  let best: ErrorObject | undefined;
  for (const error of errors) {
    if (!best || depth(error) > depth(best)) best = error;
  }
  return best;
}

const depth = (error: ErrorObject): number =>
  error.instancePath.split('/').length + (error.keyword === 'required' ? 1 : 0) - (error.keyword === 'anyOf' ? 1 : 0);

/** `/messages/0/content` → `messages[0].content` */
export function fieldPath(error: ErrorObject): string {
  let path = '';
  for (const segment of error.instancePath.split('/').slice(1)) {
    const name = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    path += /^\d+$/.test(name) ? `[${name}]` : path ? `.${name}` : name;
  }
  if (error.keyword === 'required') {
    const missing = String((error.params as { missingProperty: string }).missingProperty);
    path = path ? `${path}.${missing}` : missing;
  }
  return path || 'body';
}

function describeError(error: ErrorObject | undefined): string {
  if (!error) return 'Invalid request body';
  const field = `'${fieldPath(error)}'`;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${field} is required`;
    case 'type':
      return `${field} must be of type ${String(params.type).replace(',', ' or ')}`;
    case 'minimum':
      return `${field} must be greater than or equal to ${String(params.limit)}`;
    case 'maximum':
      return `${field} must be less than or equal to ${String(params.limit)}`;
    case 'exclusiveMinimum':
      return `${field} must be greater than ${String(params.limit)}`;
    case 'exclusiveMaximum':
      return `${field} must be less than ${String(params.limit)}`;
    case 'enum':
      return `${field} must be one of: ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `${field} must be '${String(params.allowedValue)}'`;
    case 'minItems':
      return `${field} must have at least ${String(params.limit)} item(s)`;
    case 'maxItems':
      return `${field} must have at most ${String(params.limit)} item(s)`;
    case 'minLength':
      return `${field} must not be shorter than ${String(params.limit)} character(s)`;
    case 'maxLength':
      return `${field} must not be longer than ${String(params.limit)} character(s)`;
    case 'pattern': {
      // A schema may say its rule in words (PATTERN_RULE): people read the message, not the regex (issue 35).
      const rule = (error.parentSchema as Record<string, unknown> | undefined)?.[PATTERN_RULE];
      return typeof rule === 'string' ? `${field} ${rule}` : `${field} must match the pattern ${String(params.pattern)}`;
    }
    case 'multipleOf':
      return `${field} must be a multiple of ${String(params.multipleOf)}`;
    case 'additionalProperties':
      return `${field} has an unknown property '${String(params.additionalProperty)}'`;
    case 'discriminator': {
      const branches = (error.parentSchema as { oneOf?: Array<{ properties?: Record<string, { const?: unknown }> }> })?.oneOf ?? [];
      const tag = String(params.tag);
      const allowed = branches.map((b) => b.properties?.[tag]?.const).filter((v) => v !== undefined);
      const tagField = `'${fieldPath(error) === 'body' ? tag : `${fieldPath(error)}.${tag}`}'`;
      return params.error === 'tag' && allowed.length === 0
        ? `${tagField} is required`
        : `${tagField} must be one of: ${allowed.map(String).join(', ')}`;
    }
    case 'anyOf':
    case 'oneOf':
      return `${field} does not match any allowed form`;
    default:
      return `${field} ${error.message ?? 'is invalid'}`;
  }
}

/** Adapts a validator to Fastify's validatorCompiler contract (errors become 400 GatewayErrors). */
export function toFastifyValidator(validate: Validator<unknown>) {
  return (data: unknown): { value: unknown } | { error: Error } => {
    try {
      return { value: validate(data) };
    } catch (error) {
      return { error: error as Error };
    }
  };
}
