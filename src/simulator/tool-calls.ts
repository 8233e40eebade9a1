import { sampleJsonSchema } from './json-schema-sample.js';
import { stableId } from './text.js';

/**
 * How every simulator decides on tool calls, whatever its wire format, so an agent loop behaves
 * the same on each channel: deterministic, arguments valid for the tool's JSON Schema, and a
 * final text answer once tool results came back (unless a call is forced).
 */
export interface SimTool {
  name: string;
  description?: string | undefined;
  /** The tool's JSON Schema for its arguments. */
  parameters?: unknown;
}

export type SimToolChoice = { mode: 'auto' } | { mode: 'required' } | { mode: 'none' } | { mode: 'named'; names: readonly string[] };

export interface SimToolCallInput {
  tools: readonly SimTool[];
  choice: SimToolChoice;
  /** Whether several calls may come in one turn (`parallel_tool_calls`, default true). */
  isParallel: boolean;
  /** The text the calls answer (the last user turn). */
  prompt: string;
  /** The conversation's last turn holds tool results: in `auto` mode the model answers now. */
  hasToolResults: boolean;
}

export interface SimToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

/** Words of a tool name too generic to show that a prompt is about that tool. */
const GENERIC_WORDS = new Set(['get', 'set', 'list', 'fetch', 'find', 'search', 'create', 'update', 'delete', 'make', 'tool', 'call', 'run', 'the', 'for', 'and', 'with', 'from', 'info', 'data']);

/** `get_weather`, `getWeather`, `get-weather` → ["weather"]: the words a prompt might use. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.toLowerCase())
    .filter((w) => w.length >= 3 && !GENERIC_WORDS.has(w));
}

/** A prompt is about a tool when it names it or uses one of its name's telling words. */
export function isPromptAbout(prompt: string, tool: SimTool): boolean {
  const text = prompt.toLowerCase();
  if (text.includes(tool.name.toLowerCase())) return true;
  return nameWords(tool.name).some((word) => new RegExp(`\\b${word}`).test(text));
}

export function decideToolCalls(input: SimToolCallInput): SimToolCall[] {
  const { tools, choice } = input;
  if (tools.length === 0 || choice.mode === 'none') return [];
  let chosen: SimTool[];
  switch (choice.mode) {
    case 'named':
      chosen = tools.filter((t) => choice.names.includes(t.name)).slice(0, 1);
      break;
    case 'required': {
      const about = tools.filter((t) => isPromptAbout(input.prompt, t));
      chosen = about.length > 0 ? about : [tools[0]!];
      break;
    }
    case 'auto':
      chosen = input.hasToolResults ? [] : tools.filter((t) => isPromptAbout(input.prompt, t));
      break;
  }
  if (!input.isParallel) chosen = chosen.slice(0, 1);
  return chosen.map((tool, index) => ({
    id: stableId(tool.name, input.prompt, String(index)).slice(0, 24),
    name: tool.name,
    arguments: sampleJsonSchema(tool.parameters ?? { type: 'object', properties: {} }, input.prompt).value,
  }));
}

/** The final answer after tool results: it reads them, so the reply quotes what the tools said. */
export const answerPromptAfterTools = (question: string, results: readonly string[]): string =>
  `${question} Tool results: ${results.join(' | ')}`.trim();
