import { GatewayError } from '../../errors.js';
import type { OpenAIChatRequest } from './types.js';

const invalid = (param: string, rule: string): GatewayError => new GatewayError('GW_REQ_INVALID_PARAM', `'${param}' ${rule}`, { param });
const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);
const isName = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/**
 * The tool fields of a chat request, checked for the shape translators to other protocols rely on
 * (`tools[].function.name`, `tool_choice.function.name`, `tool_calls[].function`). Families whose
 * schema does not type them (the spec's /v1/messages passes unknown fields on) would otherwise
 * reach a translator with, say, Anthropic-shaped tools: a clear 400, never a TypeError.
 */
export function assertChatToolShapes(req: OpenAIChatRequest): void {
  const { tools, tool_choice: choice } = req as { tools?: unknown; tool_choice?: unknown };
  if (tools !== undefined) {
    if (!Array.isArray(tools)) throw invalid('tools', 'must be an array of function tools');
    tools.forEach((tool, i) => {
      if (!isObject(tool) || tool.type !== 'function' || !isObject(tool.function) || !isName(tool.function.name)) {
        throw invalid(`tools[${i}]`, "must be a function tool: {type: 'function', function: {name, description?, parameters?}}");
      }
      if (tool.function.parameters !== undefined && !isObject(tool.function.parameters)) throw invalid(`tools[${i}].function.parameters`, 'must be a JSON Schema object');
    });
  }
  if (choice !== undefined && typeof choice !== 'string' && !(isObject(choice) && choice.type === 'function' && isObject(choice.function) && isName(choice.function.name))) {
    throw invalid('tool_choice', "must be 'none', 'auto', 'required' or {type: 'function', function: {name}}");
  }
  req.messages.forEach((message, i) => {
    const calls = (message as { tool_calls?: unknown }).tool_calls;
    if (calls === undefined) return;
    if (!Array.isArray(calls)) throw invalid(`messages[${i}].tool_calls`, 'must be an array');
    calls.forEach((call, j) => {
      if (!isObject(call) || !isObject(call.function) || !isName(call.function.name) || (call.function.arguments !== undefined && typeof call.function.arguments !== 'string')) {
        throw invalid(`messages[${i}].tool_calls[${j}]`, "must be {id, type: 'function', function: {name, arguments}}");
      }
    });
  });
}
