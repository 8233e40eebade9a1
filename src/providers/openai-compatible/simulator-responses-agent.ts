import { createHmac } from 'node:crypto';
import { decideToolCalls, type SimTool, type SimToolChoice } from '../../simulator/tool-calls.js';

/**
 * What the Responses simulator reads of a request to act like an agent's model: function tools,
 * the functions of `namespace` tools (calls name their namespace), custom tools (free-form input),
 * and reasoning items that carry `encrypted_content` (minted here, checked when sent back).
 */

interface DeclaredTool {
  kind: 'function' | 'custom';
  name: string;
  namespace?: string;
  tool: SimTool;
}

/** Function and custom tools, including those grouped in namespaces; hosted tools (web_search, …) are the vendor's, never called. */
function declaredTools(tools: unknown): DeclaredTool[] {
  if (!Array.isArray(tools)) return [];
  const out: DeclaredTool[] = [];
  const add = (t: { type?: unknown; name?: unknown; description?: unknown; parameters?: unknown } | null, namespace?: string) => {
    if (!t || typeof t.name !== 'string' || (t.type !== 'function' && t.type !== 'custom')) return;
    const description = typeof t.description === 'string' ? t.description : undefined;
    const parameters = t.type === 'custom' ? undefined : t.parameters;
    out.push({ kind: t.type, name: t.name, ...(namespace ? { namespace } : {}), tool: { name: t.name, description, parameters } });
  };
  for (const tool of tools as Array<{ type?: unknown; name?: unknown; tools?: unknown } | null>) {
    if (tool?.type === 'namespace' && typeof tool.name === 'string' && Array.isArray(tool.tools)) for (const inner of tool.tools) add(inner, tool.name);
    else add(tool);
  }
  return out;
}

function toolChoiceOf(choice: unknown): SimToolChoice {
  if (choice && typeof choice === 'object' && typeof (choice as { name?: unknown }).name === 'string') return { mode: 'named', names: [(choice as { name: string }).name] };
  return choice === 'none' || choice === 'required' ? { mode: choice } : { mode: 'auto' };
}

export type SimResponsesCall =
  | { type: 'function_call'; id: string; call_id: string; name: string; namespace?: string; arguments: string; status: 'completed' }
  | { type: 'custom_tool_call'; id: string; call_id: string; name: string; namespace?: string; input: string; status: 'completed' };

/** The calls this turn makes (tool-calls.ts decides), as Responses output items. */
export function pickResponsesCalls(body: Record<string, unknown>, prompt: string, hasToolResults: boolean): SimResponsesCall[] {
  const declared = declaredTools(body.tools);
  const calls = decideToolCalls({
    tools: declared.map((d) => d.tool),
    choice: toolChoiceOf(body.tool_choice),
    isParallel: body.parallel_tool_calls === true,
    prompt,
    hasToolResults,
  });
  return calls.map((call) => {
    const tool = declared.find((d) => d.name === call.name)!;
    const common = { call_id: `call_${call.id}`, name: call.name, ...(tool.namespace ? { namespace: tool.namespace } : {}), status: 'completed' as const };
    return tool.kind === 'custom'
      ? { type: 'custom_tool_call', id: `ctc_${call.id}`, ...common, input: `input for ${call.name}` }
      : { type: 'function_call', id: `fc_${call.id}`, ...common, arguments: JSON.stringify(call.arguments) };
  });
}

/**
 * `encrypted_content` of the simulator's reasoning items (asked for with
 * `include: ["reasoning.encrypted_content"]`): the item id and token count, signed. A vendor
 * checks the reasoning it gets back; so does the simulator, so a gateway that changes one byte of
 * it on the way is caught.
 */
const REASONING_KEY = 'gateway-simulator-reasoning';
const sign = (payload: string): string => createHmac('sha256', REASONING_KEY).update(payload).digest('base64url').slice(0, 32);

export function encryptReasoning(itemId: string, reasoningTokens: number): string {
  const payload = Buffer.from(JSON.stringify({ id: itemId, tokens: reasoningTokens })).toString('base64url');
  return `${payload}.${sign(payload)}`;
}

const isGenuine = (encrypted: string): boolean => {
  const [payload, signature, extra] = encrypted.split('.');
  return !!payload && signature === sign(payload) && extra === undefined;
};

/** The first reasoning item of the input whose `encrypted_content` the simulator did not mint as sent. */
export function unverifiableReasoning(items: ReadonlyArray<{ type?: unknown; id?: unknown; encrypted_content?: unknown }>): string | undefined {
  const bad = items.find((item) => item.type === 'reasoning' && typeof item.encrypted_content === 'string' && !isGenuine(item.encrypted_content));
  return bad ? String(bad.id) : undefined;
}
