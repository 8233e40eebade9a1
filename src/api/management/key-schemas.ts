import { Type, type Static, type TSchema } from 'typebox';
import { LIMITS, NO_NUL } from '../../validation/limits.js';
import { CATALOG } from '../../catalog/models.js';
import { ENDPOINT_FAMILIES as ALL_FAMILIES, type EndpointFamily } from '../../contracts/endpoint-family.js';
import { compileValidator } from '../../validation/compile.js';

/**
 * API keys' bodies and answers, as both the admin API (/admin/api) and the console (/console/api)
 * take and show them. Unlike the model endpoints, unknown fields are refused: an operator's typo
 * (`rmp`) must not silently leave a key unlimited. Model ids are the catalog's, exactly; endpoint
 * families are the catalog's families.
 */
const enumOf = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** The spec's model ids (the CLI's list; the admin API also takes the operator's, checked against the catalog). */
export const MODEL_IDS = CATALOG.map((m) => m.id);
/** Model ids, checked against the catalog by the route (it changes at run time, issue 21). */
export const ModelIds = Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { uniqueItems: true, description: 'Model ids of the catalog' });
/** The spec's families first (in catalog order), then those only operator models serve (embeddings, rerank). */
export const ENDPOINT_FAMILIES = [...new Set([...CATALOG.flatMap((m) => m.families), ...ALL_FAMILIES])] as EndpointFamily[];

/** ISO-8601 date-time (with a time zone, or read as UTC) or Unix seconds. */
export const Timestamp = Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Integer({ minimum: 0, maximum: LIMITS.unixSeconds })], {
  description: 'ISO-8601 date-time such as 2026-12-31T23:59:59Z, or Unix seconds',
});

export const PerMinute = Type.Integer({ minimum: 1, maximum: LIMITS.perMinute });
export const MaxParallel = Type.Integer({ minimum: 1, maximum: LIMITS.parallelRequests, description: 'Requests the key may have in flight at once (per gateway instance)' });
export const BudgetUsd = Type.Number({ minimum: 0, maximum: LIMITS.budgetUsd });

/** MCP servers the key may use, each with the tools it may call there (null: all of them). */
function McpGrantSchema() {
  return Type.Record(Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9-]{0,62}$' }), Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { uniqueItems: true, maxItems: 1000 })), {
    additionalProperties: false,
    description: 'MCP servers the key may use (GET /admin/api/mcp-servers), each with the tools it may call there or null for every tool; null or absent: none',
  });
}

const keyFields = {
  name: Type.String({ minLength: 1, maxLength: 200, pattern: NO_NUL }),
  /** null: every model. */
  models: Nullable(ModelIds),
  /** null: every endpoint family. */
  endpoints: Nullable(Type.Array(enumOf(ENDPOINT_FAMILIES), { uniqueItems: true })),
  tier: Nullable(Type.String({ minLength: 1, maxLength: 64 })),
  rpm: Nullable(PerMinute),
  tpm: Nullable(PerMinute),
  max_parallel_requests: Nullable(MaxParallel),
  budget_usd: Nullable(BudgetUsd),
  expires_at: Nullable(Timestamp),
  /** null: no MCP server (issue 31: deny by default). */
  mcp: Nullable(McpGrantSchema()),
  /** Response cache (issue 32): null follows the model's or the global switch. */
  cache_enabled: Nullable(Type.Boolean({ description: 'Response cache for this key: true on, false off, null follows the model or global switch' })),
  cache_ttl_seconds: Nullable(Type.Integer({ minimum: 1, maximum: 31_536_000, description: "Default TTL of this key's cache entries" })),
  cache_namespace: Nullable(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._:@/+-]+$', description: 'Operator only: a shared cache namespace instead of the owner scope' })),
  cache_mode: Nullable(Type.Union([Type.Literal('exact'), Type.Literal('semantic')], { description: 'Response cache match mode: exact, or semantic (a similar last question); null follows the model or global setting' })),
};

/** The limit and scope fields, all optional, shared by create and patch. */
const { name: _name, ...limitFields } = keyFields;
const OptionalKeyFields = Type.Partial(Type.Object(limitFields));

export const CreateKeyBody = Type.Object({ name: keyFields.name, ...OptionalKeyFields.properties }, { additionalProperties: false });
export type CreateKeyBody = Static<typeof CreateKeyBody>;

export const PatchKeyBody = Type.Object(
  {
    name: Type.Optional(keyFields.name),
    ...OptionalKeyFields.properties,
    /** true: the key answers 401 until set back to false. */
    disabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type PatchKeyBody = Static<typeof PatchKeyBody>;

export const validateCreateKey = compileValidator(CreateKeyBody);
export const validatePatchKey = compileValidator(PatchKeyBody);

const IsoOrNull = Nullable(Type.String({ description: 'ISO-8601 date-time' }));

/** A key as the admin API shows it: never the secret or its hash, only the display prefix. */
export const KeyView = Type.Object({
  id: Type.String(),
  object: Type.Literal('api_key'),
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the secret, to recognise it' }),
  status: enumOf(['active', 'disabled', 'revoked', 'expired'] as const),
  models: Nullable(Type.Array(Type.String())),
  endpoints: Nullable(Type.Array(Type.String())),
  tier: Nullable(Type.String()),
  rpm: Nullable(Type.Integer()),
  tpm: Nullable(Type.Integer()),
  max_parallel_requests: Nullable(Type.Integer()),
  mcp: Nullable(Type.Record(Type.String(), Nullable(Type.Array(Type.String())))),
  budget_usd: Nullable(Type.Number()),
  cache_enabled: Type.Optional(Nullable(Type.Boolean())),
  cache_ttl_seconds: Type.Optional(Nullable(Type.Integer())),
  cache_namespace: Type.Optional(Nullable(Type.String())),
  cache_mode: Type.Optional(Nullable(Type.Union([Type.Literal('exact'), Type.Literal('semantic')]))),
  expires_at: IsoOrNull,
  disabled: Type.Boolean(),
  created_at: Type.String({ description: 'ISO-8601 date-time' }),
  revoked_at: IsoOrNull,
  owner: Type.String({ description: "The owning user's id; `operator` for keys made by the admin API, CLI or bootstrap" }),
  owner_email: Nullable(Type.String()),
  last_used_at: Nullable(Type.String({ description: "ISO-8601 date-time of the key's latest request in the usage ledger" })),
  spent_month_usd: Type.Number({ description: 'Cost recorded this calendar month (UTC)' }),
  spent_usd: Type.Optional(Type.Number({ description: 'Cost recorded so far, what `budget_usd` counts (lists and the single-key GET)' })),
  held_usd: Type.Optional(
    Type.Number({ description: "What requests in progress hold of `budget_usd` (their worst-case cost until they end); keys with a budget, on a single instance (issue 35)" }),
  ),
  rate_limited: Type.Optional(
    Nullable(
      Type.Object(
        {
          kind: enumOf(['requests', 'tokens'] as const),
          model: Type.String(),
          limit: Type.Integer({ description: 'The per-minute limit that is used up' }),
          until: Type.String({ description: 'ISO-8601 date-time when the window ends' }),
        },
        { description: "A per-minute window (rpm or tpm) of the key used up right now, on a model: its requests for that model are refused until `until`; null when none is (issue 35)" },
      ),
    ),
  ),
});
export type KeyView = Static<typeof KeyView>;

// `type: 'object'` beside `allOf`, as TypeBox 0.34 wrote it (1.x leaves it out): the document and
// Fastify's response serializer see the same schema as before.
export const CreatedKeyView = Type.Intersect([KeyView, Type.Object({ key: Type.String({ description: 'The secret, shown this once' }) })], { type: 'object' });
export const KeyList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(KeyView),
  total: Type.Optional(Type.Integer({ description: 'Keys matching the query (paged lists only: with `limit`)' })),
  next_offset: Type.Optional(Nullable(Type.Integer({ description: 'Pass as `offset` for the next page; null on the last (paged lists only)' }))),
});

/** The keys list's search and pages (issue 22); without `limit` every key is listed, as before. */
export const KeyListQuery = Type.Object(
  {
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'A part of the name (case-insensitive)' })),
    include_revoked: Type.Optional(Type.Unsafe<'true' | 'false'>({ type: 'string', enum: ['true', 'false'], description: 'Revoked keys too (default true)' })),
    limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: 'Keys per page, 1 to 200' })),
    offset: Type.Optional(Type.String({ pattern: '^[0-9]{1,7}$', description: "The previous page's next_offset" })),
  },
  { additionalProperties: false },
);
export type KeyListQuery = Static<typeof KeyListQuery>;
export const validateKeyListQuery = compileValidator(KeyListQuery);
export const KeyIdParams = Type.Object({ id: Type.String() });
