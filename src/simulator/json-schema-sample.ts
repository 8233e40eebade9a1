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
      validate = ajv.compile(withoutDialect(schema));
    } catch {
      validate = null; // a schema Ajv cannot compile is sampled without the check
    }
    validators.set(text, validate);
  }
  return validate;
}

/** `$schema` names the dialect; Ajv2020 reads 2020-12 and draft-07 alike, so it is dropped. */
function withoutDialect(schema: object): object {
  const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
  return rest;
}

const seedOf = (text: string, attempt: number): number => createHash('sha256').update(`${attempt}\n${text}`).digest().readUInt32BE(0);

export interface SampleResult {
  value: unknown;
  /** Whether Ajv accepted the value (false only for schemas the sampler could not satisfy). */
  isValid: boolean;
}

/**
 * A deterministic value for `schema`; `salt` varies it (e.g. the prompt), so different requests
 * get different but stable values. Never throws: an unusable schema gives `{}`.
 */
export function sampleJsonSchema(schema: unknown, salt = ''): SampleResult {
  if (!schema || typeof schema !== 'object') return { value: {}, isValid: schema === undefined };
  const text = JSON.stringify(schema);
  const validate = validatorFor(schema, text);
  let first: unknown;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    let value: unknown;
    try {
      value = generateSync(withoutDialect(schema) as JsonSchema, {
        seed: seedOf(`${salt}\n${text}`, attempt),
        alwaysFakeOptionals: true,
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
