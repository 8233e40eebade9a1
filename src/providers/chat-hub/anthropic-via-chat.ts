import type { AnthropicMessage, AnthropicMessagesRequest } from '../../protocols/anthropic-messages/types.js';
import type { ViaChatHub } from './compose.js';
import { anthropicToChatRequest } from './anthropic-to-chat.js';
import { chatCompletionToAnthropic } from './anthropic-from-chat.js';
import { createAnthropicFromChatStream } from './anthropic-from-chat-stream.js';

/** Anthropic-native /v1/messages through the chat hub: any chat-capable channel serves it. */
export const anthropicViaChat: ViaChatHub<AnthropicMessagesRequest, AnthropicMessage> = {
  toChatRequest: anthropicToChatRequest,
  fromChatCompletion: chatCompletionToAnthropic,
  createChunkTranslator: createAnthropicFromChatStream,
};
