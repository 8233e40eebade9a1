import { Ajv2020 } from 'ajv/dist/2020.js';

/** Validates a value against a JSON Schema with an Ajv of the test's own (not the gateway's). */
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });

export function schemaErrors(schema: object, value: unknown): string[] {
  const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
  const validate = ajv.compile(rest);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** A tool schema with the kinds of constraints agents use: enums, ranges, nested objects, arrays. */
export const WEATHER_PARAMETERS = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 2 },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1, maximum: 7 },
    coordinates: { type: 'object', properties: { lat: { type: 'number', minimum: -90, maximum: 90 }, lon: { type: 'number', minimum: -180, maximum: 180 } }, required: ['lat', 'lon'], additionalProperties: false },
  },
  required: ['city', 'unit', 'days', 'coordinates'],
  additionalProperties: false,
} as const;

/** A structured-output schema: every field required, as strict mode wants. */
export const RECIPE_SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    servings: { type: 'integer', minimum: 1, maximum: 12 },
    vegetarian: { type: 'boolean' },
    ingredients: { type: 'array', minItems: 1, items: { type: 'object', properties: { name: { type: 'string' }, grams: { type: 'number', minimum: 0 } }, required: ['name', 'grams'], additionalProperties: false } },
  },
  required: ['title', 'servings', 'vegetarian', 'ingredients'],
  additionalProperties: false,
} as const;
