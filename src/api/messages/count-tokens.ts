import type { AnthropicContentBlockParam, AnthropicMessageParam } from '../../protocols/anthropic-messages/types.js';
import { countTokens } from '../../tokens/tokenizer.js';
import type { AnthropicCountTokensRequest } from './anthropic-schemas.js';

/**
 * What an image costs when its size is unknown here: Anthropic bills width × height / 750 tokens
 * and scales images down to about 1.15 megapixels, so ~1,600 tokens is the most one costs.
 */
const IMAGE_TOKENS = 1_600;
/** Role markers and block framing around each message. */
const MESSAGE_OVERHEAD_TOKENS = 4;

/**
 * `{input_tokens}` for /v1/messages/count_tokens, counted with the gateway's tokenizer (the one
 * its limits use), whichever vendor serves the model: free and instant, within a few percent of
 * a vendor's own count. Text, tool inputs and results, thinking, documents' text and the tools'
 * definitions count; images count at their ceiling.
 */
export function countAnthropicInputTokens(body: AnthropicCountTokensRequest): number {
  let tokens = 0;
  if (typeof body.system === 'string') tokens += countTokens(body.system);
  else for (const block of body.system ?? []) tokens += countTokens(block.text);
  if (body.tools && body.tools.length > 0) tokens += countTokens(JSON.stringify(body.tools));
  for (const message of body.messages) tokens += MESSAGE_OVERHEAD_TOKENS + messageTokens(message);
  return tokens;
}

function messageTokens(message: AnthropicMessageParam): number {
  if (typeof message.content === 'string') return countTokens(message.content);
  return message.content.reduce((sum, block) => sum + blockTokens(block), 0);
}

function blockTokens(block: AnthropicContentBlockParam): number {
  switch (block.type) {
    case 'text':
      return countTokens(block.text);
    case 'image':
      return IMAGE_TOKENS;
    case 'document':
      return block.source.type === 'text' ? countTokens(block.source.data) : IMAGE_TOKENS;
    case 'tool_use':
      return countTokens(block.name) + countTokens(JSON.stringify(block.input ?? {}));
    case 'tool_result':
      if (typeof block.content === 'string') return countTokens(block.content);
      return (block.content ?? []).reduce((sum, part) => sum + blockTokens(part), 0);
    case 'thinking':
      return countTokens(block.thinking);
    default:
      return 0;
  }
}
