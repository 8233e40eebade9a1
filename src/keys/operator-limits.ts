import type { EndpointFamily } from '../contracts/endpoint-family.js';
import type { KeyPatch } from './key-store.js';

/**
 * The limits an operator set on a key (issue 44 item 0), field by field: its key holder may
 * tighten each, never loosen or remove it. A field absent here was not set by an operator (or an
 * operator lifted it), and the holder's allowance alone bounds it. Stored as JSON in
 * `api_keys.operator_limits`; read only when a key holder changes a key, never per request.
 */
export interface OperatorLimits {
  models?: readonly string[];
  endpoints?: readonly EndpointFamily[];
  /** The operator's tier: a holder may pick only a tier whose every limit is within this one's. */
  tier?: string;
  rpm?: number;
  tpm?: number;
  maxParallel?: number;
  budgetUsd?: number;
  expiresAt?: number;
  /** The operator turned the key's cache off: the holder may not turn it on or back to the switches. */
  cacheOff?: true;
  cacheTtlS?: number;
  /** The operator set exact matching: the holder may not widen it to semantic or the switches'. */
  cacheExact?: true;
}

type Bound = Exclude<keyof OperatorLimits, 'cacheOff' | 'cacheExact'>;
const BOUNDS: readonly Bound[] = ['models', 'endpoints', 'tier', 'rpm', 'tpm', 'maxParallel', 'budgetUsd', 'expiresAt', 'cacheTtlS'];

/** Whether a patch changes anything an operator's limits record. */
export const touchesLimits = (patch: KeyPatch): boolean =>
  BOUNDS.some((field) => patch[field] !== undefined) || patch.cacheEnabled !== undefined || patch.cacheMode !== undefined;

/**
 * An operator's write laid over the limits they set before: a value becomes the bound, null (no
 * limit; for the tier, the default tier) lifts it. Undefined when nothing is left.
 */
export function withOperatorPatch(previous: OperatorLimits | null | undefined, patch: KeyPatch): OperatorLimits | undefined {
  const next: Record<string, unknown> = { ...previous };
  for (const field of BOUNDS) {
    const value = patch[field];
    if (value === undefined) continue;
    if (value === null) delete next[field];
    else next[field] = value;
  }
  if (patch.cacheEnabled !== undefined) {
    if (patch.cacheEnabled === false) next.cacheOff = true;
    else delete next.cacheOff;
  }
  if (patch.cacheMode !== undefined) {
    if (patch.cacheMode === 'exact') next.cacheExact = true;
    else delete next.cacheExact;
  }
  return Object.keys(next).length > 0 ? (next as OperatorLimits) : undefined;
}

export const parseOperatorLimits = (text: string | null | undefined): OperatorLimits | null => (text ? (JSON.parse(text) as OperatorLimits) : null);
