import type { SheetVendor } from '../price-rows.js';
import { anthropicPrices } from '../anthropic/prices.js';

/**
 * Claude on Vertex AI under Vertex's model ids (`claude-sonnet-4-5@20250929`): Google lists
 * Anthropic's own prices for the global endpoint. Gemini models keep their Gemini API ids, so
 * the gemini rows price them.
 */
export const vertexPrices: SheetVendor = {
  vendor: 'vertex',
  source: 'https://cloud.google.com/vertex-ai/generative-ai/pricing#claude-models',
  checked: '2026-11-27',
  models: Object.fromEntries(
    Object.entries(anthropicPrices.models).map(([id, model]) => [id.replace(/-(\d{8})$/, '@$1'), { ...model, basis: id }]),
  ),
};
