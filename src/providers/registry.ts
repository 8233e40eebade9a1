import type { ProviderModule, VendorId } from './types.js';
import type { FamilyPairs } from '../contracts/translator.js';
import type { ResponsesTranslatorPair } from '../protocols/openai-responses/types.js';
import { viaChatHub } from './chat-hub/compose.js';
import { anthropicViaChat } from './chat-hub/anthropic-via-chat.js';
import { responsesViaChat } from './chat-hub/responses-via-chat.js';
import { geminiViaChat } from './chat-hub/gemini-via-chat.js';
import { openai } from './openai/index.js';
import { volcengineArk } from './volcengine-ark/index.js';
import { zhipu } from './zhipu/index.js';
import { gemini } from './gemini/index.js';
import { anthropic } from './anthropic/index.js';
import { alibabaDashScope } from './alibaba-dashscope/index.js';
import { kling } from './kling/index.js';

/**
 * Families a vendor without a translator of its own serves through its chat-completions pair
 * (providers/chat-hub/): a channel of any chat-capable vendor answers Anthropic-native
 * /v1/messages, /v1/responses and Gemini-native generateContent.
 */
function withChatHubPairs(provider: ProviderModule): ProviderModule {
  const chat = provider.pairs['chat-completions'];
  if (!chat) return provider;
  const pairs: Partial<FamilyPairs> = { ...provider.pairs };
  pairs['anthropic-messages'] ??= viaChatHub(anthropicViaChat, chat);
  pairs.responses ??= viaChatHub(responsesViaChat, chat) as ResponsesTranslatorPair;
  pairs['generate-content'] ??= viaChatHub(geminiViaChat, chat);
  return { ...provider, pairs };
}

/** The only list of vendors. Adding a vendor is one folder and one line here. */
export const PROVIDERS: readonly ProviderModule[] = [openai, volcengineArk, zhipu, gemini, anthropic, alibabaDashScope, kling].map(withChatHubPairs);

const BY_VENDOR = new Map<VendorId, ProviderModule>(PROVIDERS.map((p) => [p.vendor, p]));

export function providerFor(vendor: VendorId): ProviderModule {
  const provider = BY_VENDOR.get(vendor);
  if (!provider) throw new Error(`vendor '${vendor}' has no provider module`);
  return provider;
}
