import { createHash } from 'node:crypto';
import { generateSync, type JsonSchema } from 'json-schema-faker';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

/**
 * Values for a JSON Schema that a client will accept: tool-call arguments for a tool's
 * `parameters`, structured output for `response_format.json_schema`. The values come from
 * json-schema-faker (a maintained sampler, seeded, so the same request gives the same value)
 * and are checked with Ajv: the first of a few seeds whose value validates is used.
 */

/** Seeds tried before giving up on a schema the sampler cannot satisfy. */
const ATTEMPTS = 6;
const CACHE_LIMIT = 200;

// Formats are not checked: the sampler writes well-formed dates, emails and URIs anyway, and a
// format Ajv does not know must not make a schema unusable.
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
/** Compiled validators by schema text; cleared when full (the simulator sees few distinct schemas). */
const validators = new Map<string, ValidateFunction | null>();

function validatorFor(schema: object, text: string): ValidateFunction | null {
  let validate = validators.get(text);
  if (validate === undefined) {
    if (validators.size >= CACHE_LIMIT) validators.clear();
    try {
      validate = ajv.compile(withoutPatterns(withoutDialect(schema)) as object);
    } catch {
      validate = null; // a schema Ajv cannot compile is sampled without the check
    }
    validators.set(text, validate);
  }
  return validate;
}

/**
 * `pattern` is left to the sampler (it builds strings from the expression, it does not run it):
 * running a client's regular expression in the gateway's process could backtrack for seconds.
 */
function withoutPatterns(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutPatterns);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(Object.entries(schema as Record<string, unknown>).filter(([key, value]) => !(key === 'pattern' && typeof value === 'string')).map(([key, value]) => [key, withoutPatterns(value)]));
}

/** `$schema` names the dialect; Ajv2020 reads 2020-12 and draft-07 alike, so it is dropped. */
function withoutDialect(schema: object): object {
  const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
  return rest;
}

/**
 * The simulator runs inside the gateway, so what a request can make it build is bounded: sizes a
 * schema asks for are capped (a schema demanding more gets a bounded value that fails the Ajv
 * check, and is used anyway), and very large schemas are not sampled at all.
 */
const MAX_SCHEMA_CHARS = 64 * 1024;
const SIZE_CAPS: Record<string, number> = { minItems: 16, maxItems: 16, minLength: 256, maxLength: 256, minProperties: 16, maxProperties: 16, minContains: 16 };
const MAX_SCHEMA_DEPTH = 32;

function boundSchema(schema: unknown, depth = 0): unknown {
  if (depth > MAX_SCHEMA_DEPTH) return {};
  if (Array.isArray(schema)) return schema.map((item) => boundSchema(item, depth + 1));
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    const cap = SIZE_CAPS[key];
    out[key] = cap !== undefined && typeof value === 'number' ? Math.min(value, cap) : boundSchema(value, depth + 1);
  }
  return out;
}

const seedOf = (text: string, attempt: number): number => createHash('sha256').update(`${attempt}\n${text}`).digest().readUInt32BE(0);

export interface SampleResult {
  value: unknown;
  /** Whether Ajv accepted the value (false only for schemas the sampler could not satisfy). */
  isValid: boolean;
}

export interface SampleOptions {
  /**
   * `all` (structured output): every optional property gets a value. `required` (tool arguments):
   * only required ones, as a model calling a tool leaves optional switches at their defaults.
   */
  properties?: 'all' | 'required';
}

/**
 * A deterministic value for `schema`; `salt` varies it (e.g. the prompt), so different requests
 * get different but stable values. Never throws: an unusable schema gives `{}`.
 */
export function sampleJsonSchema(schema: unknown, salt = '', options: SampleOptions = {}): SampleResult {
  const allProperties = options.properties !== 'required';
  if (!schema || typeof schema !== 'object') return { value: {}, isValid: schema === undefined };
  const text = JSON.stringify(schema);
  if (text.length > MAX_SCHEMA_CHARS) return { value: {}, isValid: false };
  const validate = validatorFor(schema, text);
  const bounded = withoutDialect(boundSchema(schema) as object) as JsonSchema;
  let first: unknown;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    let value: unknown;
    try {
      value = generateSync(bounded, {
        seed: seedOf(`${salt}\n${text}`, attempt),
        alwaysFakeOptionals: allProperties,
        optionalsProbability: allProperties ? 1 : 0,
        maxDepth: 4,
        maxDefaultItems: 2,
        validateSchemaVersion: false,
        failOnInvalidTypes: false,
      } as never);
    } catch {
      return { value: {}, isValid: false };
    }
    if (attempt === 0) first = value;
    if (!validate || validate(value)) return { value, isValid: validate !== null };
  }
  return { value: first, isValid: false };
}
