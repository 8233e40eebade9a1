import { createHash } from 'node:crypto';

/**
 * Body fields that change how an answer is delivered or who asked, not what it says (issue 32).
 * `metadata` names the caller (Anthropic's `user_id`, which Claude Code fills with its session id;
 * OpenAI's tags for stored completions): with it in the key no two sessions would ever share an
 * entry. The scope, not the body, keeps tenants apart.
 */
const DELIVERY_FIELDS = new Set(['stream', 'user', 'stream_options', 'metadata']);

/**
 * The entry id of a request: sha256 over the endpoint family, the model, the scope (whose entries)
 * and the body with its delivery fields left out and every object's keys sorted, so two clients
 * that order their JSON differently share an entry and two tenants never do.
 */
export function cacheKeyOf(parts: { family: string; model: string; scope: string; body: unknown; extra?: unknown }): string {
  const hash = createHash('sha256');
  hash.update(parts.family).update('\0').update(parts.model).update('\0').update(parts.scope).update('\0');
  hash.update(canonicalJson(parts.body, true));
  // What beside the body changes the answer (Anthropic's beta header), after it: the body's delivery fields stay out either way.
  if (parts.extra !== undefined) hash.update('\0').update(canonicalJson(parts.extra));
  return hash.digest('hex');
}

/** JSON with sorted keys; at the top level the delivery fields are dropped. */
export function canonicalJson(value: unknown, isTop = false): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined && !(isTop && DELIVERY_FIELDS.has(key)))
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
}
