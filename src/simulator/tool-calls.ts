import { stableId } from './text.js';
import { sampleToolArguments } from './tool-arguments.js';

/**
 * How every simulator decides on tool calls, whatever its wire format, so an agent loop behaves
 * the same on each channel and like a real model would: deterministic, a call only when the user's
 * last turn asks for one, one call at a time unless parallel calls were asked for, arguments a
 * client accepts (tool-arguments.ts), and a final text answer once tool results came back
 * (unless a call is forced), so a loop always ends.
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
  /**
   * The request explicitly allows several calls in one turn (`parallel_tool_calls: true`,
   * Anthropic's `disable_parallel_tool_use: false`). Without it a turn makes at most one call,
   * as models mostly do, however many tools the prompt mentions.
   */
  isParallel: boolean;
  /** The user's last turn, and only it: agents' system prompts and earlier turns name every tool. */
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
const GENERIC_WORDS = new Set([
  'get', 'set', 'list', 'fetch', 'find', 'search', 'create', 'update', 'delete', 'make', 'tool', 'call', 'run', 'the', 'for', 'and', 'with', 'from', 'info', 'data',
  'use', 'new', 'all', 'user', 'input', 'output', 'request', 'response', 'value', 'item', 'items', 'name', 'text', 'type', 'mode',
]);

/** `get_weather`, `getWeather`, `get-weather` → ["weather"]: the words a prompt might use. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.toLowerCase())
    .filter((w) => w.length >= 3 && !GENERIC_WORDS.has(w));
}

/**
 * What the user asked, without the context blocks agents wrap into the same turn: Claude Code's
 * `<system-reminder>`, Codex's `<environment_context>` and `<user_instructions>`, Gemini CLI's
 * `<session_context>` — tagged text the user did not write, which lists tools and files. One pass
 * with `indexOf` for each closing tag (a tag never closed is looked for once), since a user turn
 * may be megabytes long and the simulator runs in the gateway's process.
 */
export function requestText(prompt: string): string {
  if (!prompt.includes('<')) return prompt;
  const opening = /<([A-Za-z][\w-]*)(?:\s[^<>]*)?>/g;
  const neverClosed = new Set<string>();
  let out = '';
  let copiedUpTo = 0;
  for (let match = opening.exec(prompt); match && neverClosed.size < MAX_UNCLOSED_TAGS; match = opening.exec(prompt)) {
    const name = match[1]!;
    if (neverClosed.has(name)) continue;
    const closing = prompt.indexOf(`</${name}>`, opening.lastIndex);
    if (closing < 0) {
      neverClosed.add(name);
      continue;
    }
    out += `${prompt.slice(copiedUpTo, match.index)} `;
    copiedUpTo = closing + name.length + 3;
    opening.lastIndex = copiedUpTo;
  }
  return copiedUpTo === 0 ? prompt : out + prompt.slice(copiedUpTo);
}

/** Distinct unclosed tag names after which the scan stops: plain text with many `<` is not context. */
const MAX_UNCLOSED_TAGS = 16;

/** The user's words for a reply to quote: the turn without its context blocks (Gemini CLI's `<session_context>`), or all of it if that is all there is. */
export function quotedRequest(prompt: string): string {
  const request = requestText(prompt);
  return request === prompt ? prompt : request.replace(/\s+/g, ' ').trim() || prompt;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const mentionsName = (text: string, name: string): boolean => new RegExp(`(^|[^\\w-])${escapeRegExp(name.toLowerCase())}($|[^\\w-])`).test(text);

/**
 * A prompt is about a tool when it names it or uses one of its name's telling words (as a word,
 * plural or -ing form allowed). `sharedWords` are words of several tools' names (Codex's
 * `close_agent`, `spawn_agent`, `wait_agent`): they tell those tools apart from none.
 */
export function isPromptAbout(prompt: string, tool: SimTool, sharedWords: ReadonlySet<string> = new Set()): boolean {
  const text = requestText(prompt).toLowerCase();
  if (mentionsName(text, tool.name)) return true;
  // Words of identifiers in the prompt count too ("spawn_agent" is about spawning).
  const words = text.replace(/[_-]+/g, ' ');
  return nameWords(tool.name).some((word) => !sharedWords.has(word) && new RegExp(`\\b${word}(s|es|ed|ing)?\\b`).test(words));
}

/**
 * Bounds on the work of matching a prompt to tools (issue 34): the simulators serve every model
 * no channel covers, in the gateway's own process, so a request with 10,000 tools (4 s of regular
 * expressions) or a 1 MB tool name (a 500) must stay cheap. Real vendors cap tools at 128 and
 * names at 64 characters; tools past these bounds are still callable by name, never guessed.
 */
const MAX_MATCHED_TOOLS = 512;
const MAX_MATCHED_NAME = 256;

/** The tools the prompt is about; tools it names outright, when there are any, before those it only hints at. */
function toolsAbout(prompt: string, tools: readonly SimTool[]): SimTool[] {
  const text = requestText(prompt).toLowerCase();
  const candidates = tools.slice(0, MAX_MATCHED_TOOLS).filter((tool) => typeof tool.name === 'string' && tool.name.length <= MAX_MATCHED_NAME);
  // Each word of the text once, so a tool is a few set lookups rather than regular expressions over the prompt.
  const identifiers = new Set(text.split(/[^\w-]+/));
  const named = candidates.filter((tool) => (IDENTIFIER.test(tool.name) ? identifiers.has(tool.name.toLowerCase()) : mentionsName(text, tool.name)));
  if (named.length > 0) return named;
  const counts = new Map<string, number>();
  const wordsOf = new Map<SimTool, string[]>();
  for (const tool of candidates) {
    const words = [...new Set(nameWords(tool.name))];
    wordsOf.set(tool, words);
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  // Words of identifiers in the prompt count too ("spawn_agent" is about spawning).
  const words = new Set(text.replace(/[_-]+/g, ' ').split(/\W+/));
  const used = (word: string) => words.has(word) || WORD_FORMS.some((ending) => words.has(word + ending));
  return candidates.filter((tool) => wordsOf.get(tool)!.some((word) => counts.get(word)! === 1 && used(word)));
}

/** A name made of word characters and dashes is mentioned exactly when it is one of the text's identifiers. */
const IDENTIFIER = /^[\w-]+$/;
const WORD_FORMS = ['s', 'es', 'ed', 'ing'];

export function decideToolCalls(input: SimToolCallInput): SimToolCall[] {
  const { tools, choice } = input;
  if (tools.length === 0 || choice.mode === 'none') return [];
  let chosen: SimTool[];
  switch (choice.mode) {
    case 'named':
      chosen = tools.filter((t) => choice.names.includes(t.name)).slice(0, 1);
      break;
    case 'required': {
      const about = toolsAbout(input.prompt, tools);
      chosen = about.length > 0 ? about : [tools[0]!];
      break;
    }
    case 'auto':
      chosen = input.hasToolResults ? [] : toolsAbout(input.prompt, tools);
      break;
  }
  if (!input.isParallel) chosen = chosen.slice(0, 1);
  return chosen.map((tool, index) => ({
    id: stableId(tool.name, input.prompt, String(index)).slice(0, 24),
    name: tool.name,
    arguments: sampleToolArguments(tool.parameters, input.prompt),
  }));
}

/** The final answer after tool results: it reads them, so the reply quotes what the tools said. */
export const answerPromptAfterTools = (question: string, results: readonly string[]): string =>
  `${question} Tool results: ${results.join(' | ')}`.trim();
