import { responsesToOpenAICompatible, type ResponsesViaChatQuirks } from '../openai-compatible/from-responses.js';
import { OPENAI_QUIRKS } from '../openai-compatible/quirks.js';
import { OPENAI_BASE_URL } from './endpoint.js';

/**
 * Responses for an OpenAI-compatible server that serves chat completions only (DeepSeek, many
 * vLLM and Ollama setups; issue 33). What every such server takes: `system` for developer
 * messages (not all know the developer role), `reasoning_effort`, no reasoning sent back (some
 * refuse `reasoning_content` in input), no extra fields, and no hosted web search: a `web_search`
 * tool is left out rather than refused, because Codex attaches one to every request and such a
 * server has nothing to search with (the model answers from what it knows, as Codex's own chat
 * wire does); a request that forces it (`tool_choice: {type: "web_search"}`) is still a 400.
 */
const CHAT_ONLY_QUIRKS: ResponsesViaChatQuirks = {
  developerRoleAs: 'system',
  reasoningEffort: 'reasoning_effort',
  takesReasoningContent: false,
  webSearch: () => ({}),
  passThroughFields: [],
};

const OPENAI_HOST = new URL(OPENAI_BASE_URL).hostname;

export const openaiResponsesOverChat = {
  pair: responsesToOpenAICompatible(OPENAI_QUIRKS, CHAT_ONLY_QUIRKS),
  /** OpenAI itself and the simulator (no base URL) speak Responses; another server is assumed not to. */
  nativeByDefault(baseUrl: string | undefined): boolean {
    if (baseUrl === undefined) return true;
    try {
      return new URL(baseUrl).hostname === OPENAI_HOST;
    } catch {
      return false;
    }
  },
};
