import { GatewayError } from '../../errors.js';
import type { OpenAIChatRequest, OpenAIChatTool, OpenAIChatToolCall } from '../../protocols/openai-chat/types.js';
import type { OpenAIFunctionCallItem } from '../../protocols/openai-responses/types.js';
import {
  OPENAI_WEB_SEARCH_TOOL_TYPES,
  type OpenAIResponsesFunctionTool,
  type OpenAIResponsesNamespaceTool,
  type OpenAIResponsesWebSearchTool,
} from '../../protocols/openai-responses/input-items.js';
import { decodeNamespacedName, encodeNamespacedName, holdsSeparator, NAMESPACE_SEPARATOR } from './namespaced-tool-name.js';

/**
 * Tools of the Responses API over chat completions (openai.md §1 and §2): flat function tools
 * become chat's nested ones, the functions of a `namespace` tool become functions named
 * `<namespace>--<name>` (namespaced-tool-name.ts), `web_search` becomes what the vendor's chat
 * API searches with (its quirk) or a 400, and the upstream's `tool_calls` come back as
 * `function_call` output items with the call id as `call_id` and the namespace restored.
 * Custom (free-form input) tools have no chat counterpart on any chat upstream: a 400.
 */

/** How a vendor's chat API searches the web for a Responses `web_search` tool: extra chat tools or request fields. */
export interface ChatWebSearch {
  readonly tools?: ReadonlyArray<Record<string, unknown>>;
  readonly fields?: Readonly<Record<string, unknown>>;
}
/** Builds the vendor's web search for one `web_search` tool; throws a 400 naming `param` for what it cannot carry. */
export type ChatWebSearchMapping = (tool: OpenAIResponsesWebSearchTool, param: string) => ChatWebSearch;

const WEB_SEARCH_TYPES: ReadonlySet<string> = new Set(OPENAI_WEB_SEARCH_TOOL_TYPES);

const refuse = (param: string, what: string): GatewayError =>
  new GatewayError('GW_REQ_INVALID_PARAM', `'${param}': ${what} is not supported for this model (its channel answers through chat completions)`, { param });

function toChatFunction(tool: OpenAIResponsesFunctionTool, name: string): OpenAIChatTool {
  const fn: OpenAIChatTool['function'] = { name };
  if (typeof tool.description === 'string') fn.description = tool.description;
  if (tool.parameters) fn.parameters = tool.parameters;
  if (typeof tool.strict === 'boolean') fn.strict = tool.strict;
  return { type: 'function', function: fn };
}

function reservedName(param: string, name: string): GatewayError {
  return new GatewayError(
    'GW_REQ_INVALID_PARAM',
    `'${param}': '${name}' holds '${NAMESPACE_SEPARATOR}', which names namespace tools on this model's channel (it answers through chat completions); rename the tool`,
    { param },
  );
}

function namespaceFunctions(tool: OpenAIResponsesNamespaceTool, param: string): OpenAIChatTool[] {
  if (holdsSeparator(tool.name)) throw reservedName(`${param}.name`, tool.name);
  return tool.tools.map((inner, index) => {
    if (inner.type !== 'function') throw refuse(`${param}.tools[${index}]`, `a ${String(inner.type)} tool`);
    return toChatFunction(inner, encodeNamespacedName(tool.name, inner.name));
  });
}

/** The request's tools as chat tools (and request fields, for a vendor that searches by a field). */
export function toChatTools(tools: unknown, webSearch: ChatWebSearchMapping | undefined): { tools?: OpenAIChatTool[]; fields?: Record<string, unknown> } {
  if (!Array.isArray(tools) || tools.length === 0) return {};
  const out: OpenAIChatTool[] = [];
  let fields: Record<string, unknown> | undefined;
  tools.forEach((tool: { type?: unknown; name?: unknown }, index) => {
    const param = `tools[${index}]`;
    if (tool.type === 'function') {
      const fn = tool as OpenAIResponsesFunctionTool;
      if (holdsSeparator(fn.name)) throw reservedName(`${param}.name`, fn.name);
      out.push(toChatFunction(fn, fn.name));
    } else if (tool.type === 'namespace') {
      out.push(...namespaceFunctions(tool as OpenAIResponsesNamespaceTool, param));
    } else if (typeof tool.type === 'string' && WEB_SEARCH_TYPES.has(tool.type)) {
      if (!webSearch) throw refuse(param, 'the web_search tool');
      const search = webSearch(tool as OpenAIResponsesWebSearchTool, param);
      // Vendor tool entries (e.g. a hosted search tool) travel in `tools` beside the functions.
      out.push(...((search.tools ?? []) as unknown as OpenAIChatTool[]));
      if (search.fields) fields = { ...fields, ...search.fields };
    } else {
      throw refuse(param, `a ${typeof tool.type === 'string' ? tool.type : 'typeless'} tool`);
    }
  });
  return { ...(out.length > 0 ? { tools: out } : {}), ...(fields ? { fields } : {}) };
}

/** `auto` / `none` / `required` as they are, a named function as chat names it; other forced choices have no chat form. */
export function toChatToolChoice(choice: unknown): OpenAIChatRequest['tool_choice'] | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto' || choice === 'none' || choice === 'required') return choice;
  const named = choice as { type?: unknown; name?: unknown };
  if (named.type === 'function' && typeof named.name === 'string') return { type: 'function', function: { name: named.name } };
  throw refuse('tool_choice', `tool_choice of type '${String(named.type)}'`);
}

/** The upstream's tool calls as output items; ids derive from the call ids, so they are stable. */
export const functionCallItems = (calls: readonly OpenAIChatToolCall[] | undefined): OpenAIFunctionCallItem[] =>
  (calls ?? []).map((call) => {
    const { name, namespace } = decodeNamespacedName(call.function.name);
    return {
      id: `fc_${call.id.replace(/^call_/, '')}`,
      type: 'function_call',
      status: 'completed',
      call_id: call.id,
      name,
      ...(namespace !== undefined ? { namespace } : {}),
      arguments: call.function.arguments,
    };
  });
