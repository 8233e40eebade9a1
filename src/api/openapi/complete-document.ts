import { Type } from 'typebox';
import { envelopeForPath, type EnvelopeKind } from '../envelopes.js';
import { GoogleModelSchema } from '../generate-content/google-models.js';
import { GOOGLE_METHOD_CONTENT, OpenAIModel, REQUEST_CONTENT, SUCCESS_CONTENT } from './response-schemas.js';

/**
 * Completes the OpenAPI document @fastify/swagger builds from the routes, once, when it is first
 * served: success bodies for routes that answer translated upstream bodies (documented here, not
 * as route response schemas, which would make Fastify's serializer drop fields), the error
 * envelope of each family for every error status, operation ids, the server and the license —
 * what a client generator and a linter (Redocly's recommended rules) read.
 */
interface Operation {
  operationId?: string;
  security?: unknown[];
  responses?: Record<string, { description?: string; content?: Record<string, unknown> }>;
  [extra: string]: unknown;
}
interface Document {
  info: Record<string, unknown>;
  servers?: unknown[];
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown>; [extra: string]: unknown };
  [extra: string]: unknown;
}

const ERROR_SCHEMAS: Record<EnvelopeKind, { name: string; schema: unknown }> = {
  general: {
    name: 'GeneralError',
    schema: Type.Object({ error: Type.Object({ message: Type.String(), type: Type.String(), code: Type.String() }) }, { description: 'spec "Error body shapes": general' }),
  },
  openai: {
    name: 'OpenAIError',
    schema: Type.Object({ error: Type.Object({ message: Type.String(), type: Type.String(), param: Type.Union([Type.String(), Type.Null()]), code: Type.String() }) }, { description: "OpenAI's envelope: /v1/embeddings and /v1/rerank" }),
  },
  chat: {
    name: 'ChatError',
    schema: Type.Object({ error: Type.Object({ code: Type.String(), message: Type.String() }) }, { description: 'spec "Error body shapes": chat and messages endpoints' }),
  },
  google: {
    name: 'GoogleError',
    schema: Type.Object({ error: Type.Object({ code: Type.Integer(), message: Type.String(), status: Type.String({ description: 'e.g. INVALID_ARGUMENT, UNAUTHENTICATED, NOT_FOUND' }) }) }, { description: 'spec "Error body shapes": /v1beta endpoints' }),
  },
  kling: {
    name: 'KlingError',
    schema: Type.Object({ code: Type.Integer(), message: Type.String(), request_id: Type.String() }, { description: 'The Kling-native envelope of /videoalt' }),
  },
  anthropic: {
    name: 'AnthropicError',
    schema: Type.Object(
      {
        type: Type.Literal('error'),
        error: Type.Object({ type: Type.String({ description: 'e.g. invalid_request_error, authentication_error, rate_limit_error' }), message: Type.String() }),
        request_id: Type.Union([Type.String(), Type.Null()]),
      },
      { description: "Anthropic's envelope: /v1/messages with anthropic-version, and /v1/messages/count_tokens" },
    ),
  },
};

const STATUS_TEXT: Record<string, string> = {
  '400': 'Bad request: a parameter is missing, of the wrong type or out of range (the message names it)',
  '401': 'Missing, invalid, revoked, disabled or expired API key',
  '403': 'The key may not use this model or endpoint family',
  '404': 'No such endpoint, model or resource',
  '413': 'Request body larger than the limit',
  '429': 'Rate limit (`Retry-After` says when to retry) or budget spent (final: `x-should-retry: false`, no `Retry-After`)',
  '500': 'Internal error',
  '502': 'The upstream failed or rejected the gateway credentials',
  '503': 'The upstream is overloaded or unavailable',
  '504': 'The upstream timed out',
};
const MODEL_ERRORS = ['400', '401', '403', '404', '413', '429', '500', '502', '503', '504'];
const ADMIN_ERRORS = ['400', '401', '404'];
const PUBLIC_ERRORS = ['404'];

const operationIdOf = (method: string, path: string): string =>
  method +
  path
    .split(/[/:{}.-]+/)
    .filter(Boolean)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

export function completeOpenApiDocument(doc: Document, options: { serverUrl: string }): Document {
  doc.info = { ...doc.info, license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' } };
  doc.servers = [{ url: options.serverUrl, description: 'This gateway' }];
  const schemas = (doc.components ??= {}).schemas ?? (doc.components.schemas = {});
  for (const { name, schema } of Object.values(ERROR_SCHEMAS)) schemas[name] = toOpenApi30(schema);
  doc.paths['/v1/models/{model}'] ??= { get: toOpenApi30(modelRetrieveOperation()) as Operation };

  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      operation.operationId ??= operationIdOf(method, path);
      const form = REQUEST_CONTENT[`${method} ${path}`];
      if (form && !operation.requestBody) operation.requestBody = { required: true, content: form };
      if (operation.requestBody) operation.requestBody = toOpenApi30(inlineLocalDefs(operation.requestBody));
      const success = operation.responses?.['200'] ?? operation.responses?.['201'];
      if (success && !success.content) success.content = successContent(method, path) ?? { 'application/json': { schema: { type: 'object' } } };
      const isPublic = !operation.security || operation.security.length === 0;
      if (isPublic) operation.security = [];
      const statuses = isPublic ? PUBLIC_ERRORS : path.startsWith('/admin/') ? ADMIN_ERRORS : MODEL_ERRORS;
      const envelope = ERROR_SCHEMAS[envelopeForPath(path)].name;
      operation.responses ??= {};
      for (const status of statuses) {
        operation.responses[status] ??= { description: STATUS_TEXT[status]!, content: { 'application/json': { schema: { $ref: `#/components/schemas/${envelope}` } } } };
      }
    }
  }
  return doc;
}

function successContent(method: string, path: string): Record<string, unknown> | undefined {
  const googleMethod = /:(\w+)$/.exec(path)?.[1];
  const content = googleMethod ? GOOGLE_METHOD_CONTENT[googleMethod] : SUCCESS_CONTENT[`${method} ${path}`];
  return content && (toOpenApi30(content) as Record<string, unknown>);
}

/**
 * The document is OpenAPI 3.0 (what @fastify/swagger writes): TypeBox's `const` becomes a
 * one-value `enum`, `anyOf [X, {type: null}]` becomes X with `nullable: true`, and JSON Schema's
 * conditionals become the shapes they allow.
 */
function toOpenApi30(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toOpenApi30);
  if (!schema || typeof schema !== 'object') return schema;
  const record = schema as Record<string, unknown>;
  const anyOf = record.anyOf as Array<Record<string, unknown>> | undefined;
  if (anyOf?.length === 2 && anyOf.some((s) => s.type === 'null')) {
    const { anyOf: _anyOf, ...rest } = record;
    return { ...(toOpenApi30(anyOf.find((s) => s.type !== 'null')) as object), ...rest, nullable: true };
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (key === 'const') out.enum = [value];
    else if (!JSON_SCHEMA_ONLY.has(key)) out[key] = toOpenApi30(value);
  }
  // `if/then/else` (rules that depend on another field, e.g. content by role) have no OpenAPI 3.0
  // form: the document shows either shape, the validator enforces the condition.
  if (record.then !== undefined && record.else !== undefined) {
    const either = { anyOf: [toOpenApi30(record.then), toOpenApi30(record.else)] };
    if (out.allOf === undefined) out.allOf = [either];
    else (out.allOf as unknown[]).push(either);
  }
  if (Array.isArray(out.allOf)) {
    out.allOf = (out.allOf as Array<Record<string, unknown>>).filter((entry) => Object.keys(entry).length > 0);
    if ((out.allOf as unknown[]).length === 0) delete out.allOf;
  }
  return out;
}

/**
 * A body schema's own `$defs` (split out so Ajv compiles them as functions of their own) written
 * back in place of their `#/$defs/…` references: in the document such a reference would point at
 * the document's root.
 */
function inlineLocalDefs(value: unknown, defs: Record<string, unknown> = {}): unknown {
  if (Array.isArray(value)) return value.map((item) => inlineLocalDefs(item, defs));
  if (!value || typeof value !== 'object') return value;
  const { $defs, ...record } = value as Record<string, unknown>;
  const scope = $defs && typeof $defs === 'object' ? { ...defs, ...($defs as Record<string, unknown>) } : defs;
  const ref = typeof record.$ref === 'string' ? /^#\/\$defs\/(.+)$/.exec(record.$ref)?.[1] : undefined;
  if (ref !== undefined && scope[ref] !== undefined) return inlineLocalDefs(scope[ref], scope);
  return Object.fromEntries(Object.entries(record).map(([key, item]) => [key, inlineLocalDefs(item, scope)]));
}

/** JSON Schema keywords OpenAPI 3.0 does not know; conditionals are rewritten above, the rest left to the validator. */
const JSON_SCHEMA_ONLY: ReadonlySet<string> = new Set(['if', 'then', 'else', 'propertyNames']);

/** The route is hidden (it answers two shapes); documented here with both. */
function modelRetrieveOperation(): Operation {
  return {
    summary: 'Retrieve a model',
    description:
      'OpenAI `models.retrieve` with `Authorization: Bearer`; Google `models.get` (as `GET /v1beta/models/{model}`) when the call is Google-style (`x-goog-api-key` or `?key=`, no bearer header). ' +
      'The Gemini-native methods are also served under `/v1/models/{model}:{method}`, as under `/v1beta`.',
    tags: ['models'],
    security: [{ bearer: [] }, { googleKeyHeader: [] }, { googleKey: [] }],
    parameters: [{ name: 'model', in: 'path', required: true, schema: { type: 'string' } }],
    responses: { '200': { description: 'The model', content: { 'application/json': { schema: { oneOf: [OpenAIModel, GoogleModelSchema] } } } } },
  };
}
