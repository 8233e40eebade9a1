import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { sampleJsonSchema } from '../../src/simulator/json-schema-sample.js';
import { geminiSchemaToJsonSchema } from '../../src/providers/gemini/simulator-schema.js';

const ajv = new Ajv2020({ strict: false, validateFormats: false });

const SCHEMAS: Record<string, object> = {
  enums: { type: 'object', properties: { unit: { enum: ['c', 'f'] }, level: { type: 'integer', minimum: 3, maximum: 5 } }, required: ['unit', 'level'], additionalProperties: false },
  nested: { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'array', minItems: 2, maxItems: 4, items: { type: 'string', minLength: 1 } } }, required: ['b'] } }, required: ['a'] },
  refs: { $defs: { point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'], additionalProperties: false } }, type: 'object', properties: { from: { $ref: '#/$defs/point' }, to: { $ref: '#/$defs/point' } }, required: ['from', 'to'] },
  unions: { type: 'object', properties: { id: { anyOf: [{ type: 'string', pattern: '^[a-z]{3}-\\d{2}$' }, { type: 'integer' }] }, note: { type: ['string', 'null'] }, kind: { const: 'fixed' } }, required: ['id', 'note', 'kind'] },
  zod4: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { title: { type: 'string' }, when: { type: 'string', format: 'date-time' } }, required: ['title', 'when'], additionalProperties: false },
  array: { type: 'array', items: { type: 'boolean' }, minItems: 1 },
};

/** The simulator's schema sampler (issue 16): valid, deterministic, never throwing. */
describe('sampleJsonSchema', () => {
  it.each(Object.entries(SCHEMAS))('%s: the value validates against the schema', (_name, schema) => {
    const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
    for (const salt of ['a', 'b', 'c']) {
      const { value, isValid } = sampleJsonSchema(schema, salt);
      expect(isValid).toBe(true);
      expect(ajv.validate(rest, value), JSON.stringify(value)).toBe(true);
    }
  });

  it('gives the same value for the same schema and salt', () => {
    expect(sampleJsonSchema(SCHEMAS.nested, 'x').value).toEqual(sampleJsonSchema(SCHEMAS.nested, 'x').value);
  });

  it('never throws: a broken schema gives an empty object', () => {
    expect(sampleJsonSchema({ $ref: '#/$defs/missing' }, 'x').value).toEqual({});
    expect(sampleJsonSchema(undefined).value).toEqual({});
  });

  it("reads Gemini's OpenAPI-style Schema after conversion", () => {
    const schema = geminiSchemaToJsonSchema({ type: 'OBJECT', properties: { n: { type: 'INTEGER', minimum: 1, maximum: 3 }, s: { type: 'STRING', nullable: true } }, required: ['n', 's'], propertyOrdering: ['n', 's'] });
    expect(schema).toEqual({ type: 'object', properties: { n: { type: 'integer', minimum: 1, maximum: 3 }, s: { type: ['string', 'null'] } }, required: ['n', 's'] });
    expect(ajv.validate(schema as object, sampleJsonSchema(schema).value)).toBe(true);
  });
});

describe('sampleJsonSchema bounds', () => {
  it('caps the sizes a schema asks for, so a request cannot make the simulator build huge values', () => {
    const started = Date.now();
    const { value, isValid } = sampleJsonSchema({ type: 'array', minItems: 100_000, items: { type: 'string', minLength: 5_000_000 } }, 'big');
    expect(isValid).toBe(false);
    expect(JSON.stringify(value).length).toBeLessThan(16 * 300);
    expect(Date.now() - started).toBeLessThan(5_000); // generous: uncapped this takes seconds and megabytes
  });

  it('does not sample schemas larger than 64 KB', () => {
    const properties = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`field_${i}`, { type: 'string', description: 'x'.repeat(20) }]));
    expect(sampleJsonSchema({ type: 'object', properties }).value).toEqual({});
  });
});
