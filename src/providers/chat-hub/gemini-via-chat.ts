import type { GeminiGenerateContentResponse, GenerateContentCall } from '../../protocols/gemini-generate/types.js';
import type { ViaChatHub } from './compose.js';
import { geminiToChatRequest } from './gemini-to-chat.js';
import { chatCompletionToGemini } from './gemini-from-chat.js';
import { createGeminiFromChatStream } from './gemini-from-chat-stream.js';

/** Gemini-native generateContent through the chat hub: any chat-capable channel serves it (Gemini CLI on an OpenAI channel). */
export const geminiViaChat: ViaChatHub<GenerateContentCall, GeminiGenerateContentResponse> = {
  toChatRequest: geminiToChatRequest,
  fromChatCompletion: chatCompletionToGemini,
  createChunkTranslator: createGeminiFromChatStream,
};
