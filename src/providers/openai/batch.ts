import { openAIBatchAdapter } from '../openai-compatible/batch.js';
import { openaiResponsesOverChat } from './responses-over-chat.js';

/**
 * OpenAI's Batch API (openai-compatible/batch.ts). Native by default for OpenAI itself and the
 * simulator, as Responses is: many OpenAI-compatible servers behind a `base_url` (vLLM, Ollama)
 * have no /batches, so their channels say `batch: native` when theirs does.
 */
export const openaiBatch = openAIBatchAdapter({ nativeByDefault: openaiResponsesOverChat.nativeByDefault });
