import { readFileSync } from 'node:fs';

/**
 * Request shapes of coding agents and agent SDKs on /v1/responses, from what they were seen to
 * send (shared protocol notes "agents.md", re-captured on loopback for issue 20): Codex 0.169's
 * first request as a fixture, and how Codex and the OpenAI Agents SDK 0.20 resend the model's
 * output items on the next turn.
 */

type Item = Record<string, unknown>;

interface CodexFixture {
  headers: Record<string, string>;
  body: { input: Item[]; tools: Item[]; [field: string]: unknown };
}

const codexFixture = JSON.parse(readFileSync(new URL('../fixtures/agents/codex-0.169-first-request.json', import.meta.url), 'utf8')) as CodexFixture;

/** Codex's first request for `model`, its prompt (the last input item) replaced: developer instructions that name every tool, an environment message, the prompt. */
export function codexFirstRequest(model: string, prompt: string): CodexFixture['body'] {
  const body = structuredClone(codexFixture.body);
  const last = body.input[body.input.length - 1]!;
  body.input[body.input.length - 1] = { ...last, content: [{ type: 'input_text', text: prompt }] };
  return { ...body, model };
}

/** Codex's per-request headers (session and thread ids, its originator), for the record. */
export const codexHeaders = (): Record<string, string> => ({ ...codexFixture.headers });

/** A user message as Codex sends one (`type`, `id`, input_text parts). */
export const codexUserMessage = (text: string, id: string): Item => ({ type: 'message', id, role: 'user', content: [{ type: 'input_text', text }] });

/** How Codex resends the output items of a response: each field it keeps, in its order (reasoning with `content: null`). */
export function codexResends(output: readonly Item[]): Item[] {
  return output.map((item) => {
    switch (item.type) {
      case 'reasoning':
        return { type: 'reasoning', id: item.id, summary: item.summary, content: null, encrypted_content: item.encrypted_content ?? null };
      case 'function_call':
        return { type: 'function_call', status: 'completed', id: item.id, name: item.name, ...(item.namespace ? { namespace: item.namespace } : {}), arguments: item.arguments, call_id: item.call_id };
      case 'message':
        return { type: 'message', status: 'completed', id: item.id, role: 'assistant', content: item.content };
      default:
        return item;
    }
  });
}

/** A tool result as Codex sends it back (with its own `fco_` id). */
export const codexToolOutput = (callId: string, output: string): Item => ({ type: 'function_call_output', id: `fco_${callId}`, call_id: callId, output });

/** The OpenAI Agents SDK's function tool: strict, its Zod schema as draft-07 JSON Schema. */
export const AGENTS_SDK_WEATHER_TOOL = {
  type: 'function',
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};

/** How the Agents SDK resends output items: reasoning, calls with `status`, assistant messages. */
export function agentsSdkResends(output: readonly Item[]): Item[] {
  return output.map((item) => {
    switch (item.type) {
      case 'reasoning':
        return { id: item.id, type: 'reasoning', summary: item.summary, ...(item.encrypted_content ? { encrypted_content: item.encrypted_content } : {}) };
      case 'function_call':
        return { id: item.id, type: 'function_call', name: item.name, call_id: item.call_id, arguments: item.arguments, status: 'completed' };
      case 'message':
        return { type: 'message', id: item.id, role: 'assistant', content: item.content, status: 'completed' };
      default:
        return item;
    }
  });
}

/** A tool result as the Agents SDK sends it back. */
export const agentsSdkToolOutput = (callId: string, output: string): Item => ({ type: 'function_call_output', call_id: callId, output, status: 'completed' });
