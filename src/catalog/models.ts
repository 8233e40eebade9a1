import { VIDEOALT_MODELS } from '../protocols/kling-video/types.js';
import type { EndpointFamily, ModelKind } from '../contracts/endpoint-family.js';
/**
 * The public model catalog (spec "Endpoints"). Public ids keep the spec's neutral words; the
 * vendor serving each one by default and its upstream name live in the provider registry.
 */
export interface CatalogModel {
  readonly id: string;
  /** The neutral vendor word, shown as `owned_by` in /v1/models. */
  readonly owner: string;
  readonly families: readonly EndpointFamily[];
  /** Models that produce reasoning text (reasoning_content / reasoning tokens). */
  readonly isReasoning: boolean;
  /**
   * The most reasoning tokens the model may produce before it answers, on top of the answer's
   * own maximum (`max_tokens` bounds the answer, not the reasoning): what a budget must hold for
   * it (usage/worst-case.ts). Set for reasoning models; the one place to change per model.
   */
  readonly reasoningCeiling?: number;
  readonly kind: ModelKind;
}

/**
 * The vendors' documented ceiling on a chain of thought: Ark's Seed models think up to 32 K
 * tokens, Gemini's largest `thinkingBudget` is 32,768 (validation/limits.ts), Zhipu's GLM
 * thinking stays within it. A model whose vendor documents more gets its own figure in CATALOG.
 */
export const DEFAULT_REASONING_CEILING = 32_768;

/** Family B of /v1/chat/completions and the models of /v1/responses. */
export const BETA_FAMILY_MODELS = [
  'beta-seed-2.0-pro',
  'beta-seed-2.0-code',
  'beta-seed-2.0-lite',
  'beta-seed-2.0-mini',
  'beta-seed-1-8-251228',
  'beta-seed-1-6-flash-250828',
  'beta-seed-1-6-251015',
  'beta-seed-1-6-lite-251015',
  'beta-seed-1-6-vision-250815',
  'epsilon-4.7',
] as const;

export const FAMILY_A_MODELS = ['delta-4.1'] as const;
export const FAMILY_C_MODELS = ['beta-seed-1-6-lite-251015'] as const;
export const MESSAGES_MODELS = ['alpha-sonnet-4-5-20250929', 'alpha-opus-4-20250514'] as const;
export const VIDEO_MODELS = ['zeta-1.0-r2v'] as const;
export const IMAGE_MODELS = ['gamma-3.1-flash-image'] as const;
/** Kling-native `model_name` values accepted on /videoalt (protocols/kling.md), per capability. */
export const ASSET_MODEL = 'cloud-asset';
/** The native-style endpoints: each path names one model and one method (spec §8, §9). */
export const GENERATE_CONTENT_ENDPOINTS = {
  'gamma-2.5-flash-lite': 'generateContent',
  'gamma-3.1-flash-image': 'streamGenerateContent',
} as const;

const model = (id: string, owner: string, families: EndpointFamily[], kind: ModelKind, isReasoning = kind === 'reasoning'): CatalogModel =>
  Object.freeze({ id, owner, families: Object.freeze(families), isReasoning, kind, ...(isReasoning ? { reasoningCeiling: DEFAULT_REASONING_CEILING } : {}) });

/** The spec's models: always served, with exactly the spec's validation (the default catalog). */
export const CATALOG: readonly CatalogModel[] = Object.freeze([
  model('delta-4.1', 'delta', ['chat-completions'], 'chat'),
  ...BETA_FAMILY_MODELS.map((id) => model(id, id.split('-')[0]!, ['chat-completions', 'responses'], 'reasoning')),
  ...MESSAGES_MODELS.map((id) => model(id, 'alpha', ['messages'], 'chat')),
  model('zeta-1.0-r2v', 'zeta', ['video-generations'], 'video'),
  model('gamma-3.1-flash-image', 'gamma', ['images', 'generate-content'], 'image', true),
  model('gamma-2.5-flash-lite', 'gamma', ['generate-content'], 'chat'),
  ...[...new Set(Object.values(VIDEOALT_MODELS).flat())].map((id) => model(id, 'videoalt', ['videoalt'], 'video')),
  model(ASSET_MODEL, 'cloud', ['cloud-asset'], 'asset'),
]);

const BY_ID = new Map(CATALOG.map((m) => [m.id, m]));
export const findModel = (id: string): CatalogModel | undefined => BY_ID.get(id);
