import type { ProviderModule } from './types.js';
import type { FamilyPairs } from '../contracts/translator.js';
import type { ResponsesTranslatorPair } from '../protocols/openai-responses/types.js';
import { collectChannelFields, type ChannelField } from './channel-fields.js';
import { viaChatHub } from './chat-hub/compose.js';
import { anthropicViaChat } from './chat-hub/anthropic-via-chat.js';
import { responsesViaChat } from './chat-hub/responses-via-chat.js';
import { geminiViaChat } from './chat-hub/gemini-via-chat.js';

/**
 * Families a vendor without a translator of its own serves through its chat-completions pair
 * (providers/chat-hub/): a channel of any chat-capable vendor answers Anthropic-native
 * /v1/messages, /v1/responses and Gemini-native generateContent.
 */
function withChatHubPairs<V extends string>(provider: ProviderModule<V>): ProviderModule<V> {
  const chat = provider.pairs['chat-completions'];
  if (!chat) return provider;
  const pairs: Partial<FamilyPairs> = { ...provider.pairs };
  pairs['anthropic-messages'] ??= viaChatHub(anthropicViaChat, chat);
  pairs.responses ??= viaChatHub(responsesViaChat, chat) as ResponsesTranslatorPair;
  pairs['generate-content'] ??= viaChatHub(geminiViaChat, chat);
  return { ...provider, pairs };
}

/**
 * The only list of vendors, one line each: adding a vendor is its folder (providers/<vendor>/,
 * with its simulator.ts, prices.ts and channel fields) and one line here. Each line imports the
 * folder's module itself, so the line is the whole entry; the order is the order of the default
 * simulator channels and of the price sheet.
 */
const VENDOR_MODULES = [
  (await import('./openai/index.js')).openai,
  (await import('./volcengine-ark/index.js')).volcengineArk,
  (await import('./zhipu/index.js')).zhipu,
  (await import('./gemini/index.js')).gemini,
  (await import('./anthropic/index.js')).anthropic,
  (await import('./alibaba-dashscope/index.js')).alibabaDashScope,
  (await import('./kling/index.js')).kling,
  (await import('./bedrock/index.js')).bedrock,
  (await import('./azure-openai/index.js')).azureOpenAI,
  (await import('./vertex/index.js')).vertex,
  (await import('./cohere/index.js')).cohere,
  (await import('./voyage/index.js')).voyage,
] as const;

/** A vendor id: the `vendor` of one of the registry's modules (a channel's `vendor`). */
export type VendorId = (typeof VENDOR_MODULES)[number]['vendor'];

/** The vendor ids in the registry's order: the config's `vendor` check and GET /admin/api/vendors read them. */
export const VENDOR_IDS: readonly VendorId[] = VENDOR_MODULES.map((p) => p.vendor);

export const PROVIDERS: readonly ProviderModule<VendorId>[] = VENDOR_MODULES.map(withChatHubPairs);

/** Every channel field the vendors declare, by name: the config schema, sealing, masking and redaction read it. */
export const CHANNEL_FIELDS: ReadonlyMap<string, ChannelField> = collectChannelFields(PROVIDERS);

const BY_VENDOR = new Map<VendorId, ProviderModule<VendorId>>(PROVIDERS.map((p) => [p.vendor, p]));

export function providerFor(vendor: VendorId): ProviderModule<VendorId> {
  const provider = BY_VENDOR.get(vendor);
  if (!provider) throw new Error(`vendor '${vendor}' has no provider module`);
  return provider;
}
