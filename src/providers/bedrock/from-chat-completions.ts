import { GatewayError } from '../../errors.js';
import { assertChatToolShapes } from '../../protocols/openai-chat/tool-shapes.js';
import type { OpenAIChatCompletion, OpenAIChatRequest, OpenAIChatTool, OpenAIChatToolCall } from '../../protocols/openai-chat/types.js';
import type { TranslateContext, TranslatorPair } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import type { UpstreamCall } from '../../contracts/upstream-call.js';
import { bedrockPath, EVENT_STREAM_TYPE } from './endpoint.js';
import { bedrockUpstreamError } from './errors.js';
import { createEventStreamDecoder } from './event-stream.js';
import { createConverseStreamTranslator } from './from-chat-completions-stream.js';
import { mapConverseStopReason, toChatUsageFromConverse, toGatewayUsageFromConverse } from './converse-usage.js';
import { toConverseMessages } from './to-converse-messages.js';
import type { ConverseRequest, ConverseResponse, ConverseTool, ConverseToolChoice } from './wire.js';

/** Model-native fields a chat client may add (Claude's extended thinking, top_k): sent as `additionalModelRequestFields`. */
const ADDITIONAL_FIELDS = ['thinking', 'top_k'] as const;

/** Converse's temperature range is 0..1 (clouds.md §2); the spec's 0..2 values above 1 go as 1. */
const CONVERSE_MAX_TEMPERATURE = 1;

/**
 * Chat-shaped requests (every chat family, through the chat hub for the others) to Converse and
 * ConverseStream, for every Bedrock model: system/developer messages → `system`, `stop` →
 * `stopSequences`, tools → `toolConfig`, images as bytes. `frequency_penalty`/`presence_penalty`
 * have no Converse field and are left out; what Converse cannot honour (`n` > 1, logprobs,
 * structured output) is refused.
 */
export const chatCompletionsToBedrock: TranslatorPair<OpenAIChatRequest, OpenAIChatCompletion> = {
  toUpstream(req: OpenAIChatRequest, ctx: TranslateContext): UpstreamCall {
    rejectUnsupported(req);
    assertChatToolShapes(req);
    const { system, messages } = toConverseMessages(req.messages);
    const body: ConverseRequest = { messages };
    if (system) body.system = system;
    const inference: NonNullable<ConverseRequest['inferenceConfig']> = {};
    const maxTokens = req.max_completion_tokens ?? req.max_tokens;
    if (maxTokens !== undefined) inference.maxTokens = maxTokens;
    if (req.temperature !== undefined) inference.temperature = Math.min(req.temperature, CONVERSE_MAX_TEMPERATURE);
    if (req.top_p !== undefined) inference.topP = req.top_p;
    if (req.stop !== undefined) inference.stopSequences = typeof req.stop === 'string' ? [req.stop] : [...req.stop];
    if (Object.keys(inference).length > 0) body.inferenceConfig = inference;
    // Converse has no `none` choice: without one the tools stay declared (history may use them) and the model chooses.
    if (req.tools && req.tools.length > 0) {
      body.toolConfig = { tools: req.tools.map(toConverseTool) };
      const choice = req.tool_choice === undefined ? undefined : toConverseToolChoice(req.tool_choice);
      if (choice) body.toolConfig.toolChoice = choice;
    }
    const extra: Record<string, unknown> = {};
    for (const field of ADDITIONAL_FIELDS) if (req[field] !== undefined) extra[field] = req[field];
    if (Object.keys(extra).length > 0) body.additionalModelRequestFields = extra;
    const call: UpstreamCall = { method: 'POST', path: bedrockPath(ctx.upstreamModel, req.stream ? 'converse-stream' : 'converse'), body };
    if (req.stream) {
      call.stream = true;
      call.headers = { accept: EVENT_STREAM_TYPE };
    }
    return call;
  },

  fromUpstream(res: unknown, ctx: TranslateContext): { body: OpenAIChatCompletion; usage: Usage } {
    const answer = res as ConverseResponse | null;
    const content = answer?.output?.message?.content;
    if (!answer || typeof answer !== 'object' || !Array.isArray(content)) {
      throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream returned a Converse answer without a message');
    }
    let text = '';
    let reasoning = '';
    const toolCalls: OpenAIChatToolCall[] = [];
    for (const block of content) {
      if ('text' in block) text += block.text;
      else if ('reasoningContent' in block) reasoning += block.reasoningContent.reasoningText?.text ?? '';
      else if ('toolUse' in block) {
        toolCalls.push({ id: block.toolUse.toolUseId, type: 'function', function: { name: block.toolUse.name, arguments: JSON.stringify(block.toolUse.input ?? {}) } });
      }
    }
    const body: OpenAIChatCompletion = {
      // Converse answers carry no id: ours, from the request id.
      id: `chatcmpl-${ctx.requestId}`,
      object: 'chat.completion',
      created: ctx.now,
      model: ctx.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: toolCalls.length > 0 && !text ? null : text,
            ...(reasoning && !ctx.hidesReasoning ? { reasoning_content: reasoning } : {}),
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: mapConverseStopReason(answer.stopReason),
        },
      ],
      usage: toChatUsageFromConverse(answer.usage),
    };
    return { body, usage: toGatewayUsageFromConverse(answer.usage) };
  },

  createStreamTranslator: createConverseStreamTranslator,
  createStreamDecoder: createEventStreamDecoder,
  fromUpstreamError: bedrockUpstreamError,
};

function rejectUnsupported(req: OpenAIChatRequest): void {
  if (req.n !== undefined && req.n !== 1) {
    throw new GatewayError('GW_REQ_INVALID_PARAM', "'n' must be 1 for this model: its upstream returns one choice", { param: 'n' });
  }
  if (req.response_format !== undefined && req.response_format.type !== 'text') {
    throw new GatewayError('GW_REQ_INVALID_PARAM', "'response_format' other than text is not supported for this model's upstream", { param: 'response_format' });
  }
  if (req.logprobs === true) {
    throw new GatewayError('GW_REQ_INVALID_PARAM', "'logprobs' is not supported for this model's upstream", { param: 'logprobs' });
  }
}

/** Converse requires an input schema; a function declared without parameters takes an empty object. */
const toConverseTool = (tool: OpenAIChatTool): ConverseTool => ({
  toolSpec: {
    name: tool.function.name,
    ...(tool.function.description !== undefined ? { description: tool.function.description } : {}),
    inputSchema: { json: tool.function.parameters ?? { type: 'object', properties: {} } },
  },
});

function toConverseToolChoice(choice: NonNullable<OpenAIChatRequest['tool_choice']>): ConverseToolChoice | undefined {
  if (typeof choice === 'object') return { tool: { name: choice.function.name } };
  if (choice === 'required') return { any: {} };
  if (choice === 'auto') return { auto: {} };
  return undefined;
}
