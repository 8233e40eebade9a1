import type { SimRequest, SimResponse, SimulatorSpec } from '../../simulator/server.js';
import { countTokens, simulateText } from '../../simulator/text.js';
import type { AnthropicMessagesRequest } from '../../protocols/anthropic-messages/types.js';
import { simulateAnthropicMessage } from '../anthropic/simulator.js';
import { decideToolCalls, type SimToolChoice } from '../../simulator/tool-calls.js';
import { answerEmbeddings, isEmbedModel } from './simulator-embeddings.js';
import { chunkFrame, eventFrame } from './simulator-frames.js';
import type { ConverseContentBlock, ConverseRequest } from './wire.js';

/** Bedrock's error body is `{"message"}`, its name in `x-amzn-ErrorType` (clouds.md §2 "Errors"). */
const EXCEPTION_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'ValidationException', 403: 'AccessDeniedException', 404: 'ResourceNotFoundException', 408: 'ModelTimeoutException',
  429: 'ThrottlingException', 500: 'InternalServerException', 503: 'ServiceUnavailableException',
};

export const bedrockErrorBody = (_status: number, message: string): unknown => ({ message });

const ROUTE = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/;

/**
 * A fake Bedrock runtime for simulator channels (which sign nothing: they send the simulator's
 * key as a Bedrock API key). Converse answers deterministic text or a tool call; Claude ids on
 * InvokeModel answer an Anthropic Message, both streamed as real event-stream frames; Titan and
 * Cohere embed models answer embeddings.
 */
export const bedrockSimulator: SimulatorSpec = {
  vendor: 'bedrock',
  errorBody: bedrockErrorBody,
  async handle(req, res) {
    const route = req.method === 'POST' ? ROUTE.exec(req.path) : null;
    if (!route) return false;
    if (!/^Bearer \S+|^AWS4-HMAC-SHA256 /.test(req.headers.authorization ?? '')) {
      fail(res, 403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
      return true;
    }
    const modelId = decodeURIComponent(route[1]!);
    const operation = route[2]!;
    if (operation.startsWith('converse')) await converse(req, res, modelId, operation === 'converse-stream');
    else if (operation === 'invoke' && isEmbedModel(modelId)) await answerEmbeddings(res, modelId, req.body as Record<string, unknown> | undefined, fail);
    else await invoke(req, res, modelId, operation === 'invoke-with-response-stream');
    return true;
  },
};

function fail(res: SimResponse, status: number, name: string, message: string): void {
  res.json(status, { message }, { 'x-amzn-errortype': `${name}:http://internal.amazon.com/coral/com.amazon.bedrock/` });
}

const textOfBlocks = (blocks: readonly ConverseContentBlock[] | undefined): string => (blocks ?? []).map((block) => ('text' in block ? block.text : '')).join('');

async function converse(req: SimRequest, res: SimResponse, modelId: string, stream: boolean): Promise<void> {
  const body = req.body as ConverseRequest | undefined;
  if (!body || !Array.isArray(body.messages) || body.messages.length === 0) {
    fail(res, 400, 'ValidationException', 'The value at messages must contain at least one message.');
    return;
  }
  const last = body.messages[body.messages.length - 1]!;
  const prompt = textOfBlocks(last.content);
  const hasToolResults = last.content.some((block) => 'toolResult' in block);
  const tools = (body.toolConfig?.tools ?? []).map((tool) => ({ name: tool.toolSpec.name, description: tool.toolSpec.description, parameters: tool.toolSpec.inputSchema.json }));
  const choice = body.toolConfig?.toolChoice;
  const mode: SimToolChoice = !choice || 'auto' in choice ? { mode: 'auto' } : 'any' in choice ? { mode: 'required' } : { mode: 'named', names: [choice.tool.name] };
  const calls = decideToolCalls({ tools, choice: mode, isParallel: false, prompt, hasToolResults });
  const reply = simulateText({ model: modelId, prompt: prompt || 'tool results', maxTokens: body.inferenceConfig?.maxTokens, stop: body.inferenceConfig?.stopSequences });
  const inputTokens = countTokens(JSON.stringify(body.messages)) + countTokens(JSON.stringify(body.system ?? []));
  const outputTokens = calls.length > 0 ? countTokens(JSON.stringify(calls)) : reply.contentTokens;
  const stopReason = calls.length > 0 ? 'tool_use' : reply.finishReason === 'length' ? 'max_tokens' : 'end_turn';
  const usage = { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens, cacheReadInputTokens: 0, cacheWriteInputTokens: 0 };
  if (!stream) {
    const content: ConverseContentBlock[] = calls.length > 0 ? calls.map((call) => ({ toolUse: { toolUseId: `tooluse_${call.id}`, name: call.name, input: call.arguments } })) : [{ text: reply.content }];
    res.json(200, { output: { message: { role: 'assistant', content } }, stopReason, usage, metrics: { latencyMs: 1 } });
    return;
  }
  const frames: Buffer[] = [eventFrame('messageStart', { role: 'assistant' })];
  if (calls.length > 0) {
    calls.forEach((call, index) => {
      frames.push(eventFrame('contentBlockStart', { contentBlockIndex: index, start: { toolUse: { toolUseId: `tooluse_${call.id}`, name: call.name } } }));
      frames.push(eventFrame('contentBlockDelta', { contentBlockIndex: index, delta: { toolUse: { input: JSON.stringify(call.arguments) } } }));
      frames.push(eventFrame('contentBlockStop', { contentBlockIndex: index }));
    });
  } else {
    for (const piece of reply.contentPieces) frames.push(eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: piece } }));
    frames.push(eventFrame('contentBlockStop', { contentBlockIndex: 0 }));
  }
  frames.push(eventFrame('messageStop', { stopReason }), eventFrame('metadata', { usage, metrics: { latencyMs: 1 } }));
  await sendFrames(res, frames);
}

/**
 * Claude through InvokeModel: the Anthropic simulator's Message for the body (tools, thinking and
 * prompt caching included) with the URL's model, each stream event in a `chunk` frame, the last
 * carrying Bedrock's invocation metrics.
 */
async function invoke(req: SimRequest, res: SimResponse, modelId: string, stream: boolean): Promise<void> {
  const body = req.body as Record<string, unknown> | undefined;
  if (!/anthropic\./.test(modelId)) {
    fail(res, 400, 'ValidationException', 'The simulator answers InvokeModel for Anthropic and embed models only.');
    return;
  }
  if (!body || body.anthropic_version !== 'bedrock-2023-05-31' || body.model !== undefined || body.stream !== undefined || !Array.isArray(body.messages)) {
    fail(res, 400, 'ValidationException', 'Malformed input request: anthropic_version bedrock-2023-05-31 required; model and stream are not permitted.');
    return;
  }
  const { anthropic_version: _version, anthropic_beta: _betas, ...messages } = body;
  const { message, events } = simulateAnthropicMessage({ ...(messages as unknown as AnthropicMessagesRequest), model: modelId.replace(/^.*anthropic\./, '') }, req.promptCache);
  if (!stream) {
    res.json(200, message);
    return;
  }
  const metrics = { inputTokenCount: message.usage.input_tokens, outputTokenCount: message.usage.output_tokens, invocationLatency: 1, firstByteLatency: 1 };
  await sendFrames(res, events.map((event) => chunkFrame(event.type === 'message_stop' ? { ...event, 'amazon-bedrock-invocationMetrics': metrics } : event)));
}

async function sendFrames(res: SimResponse, frames: readonly Buffer[]): Promise<void> {
  res.raw.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-bedrock-content-type': 'application/json', 'x-simulator': 'bedrock' });
  for (const frame of frames) {
    if (res.raw.destroyed) return;
    if (!res.raw.write(frame)) await new Promise((resolve) => res.raw.once('drain', resolve));
  }
  res.raw.end();
}

/** The simulator's status → exception name, for docs and fakes that answer errors. */
export const exceptionNameFor = (status: number): string => EXCEPTION_BY_STATUS[status] ?? 'InternalServerException';
