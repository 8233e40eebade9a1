import { describe, expect, it } from 'vitest';
import { decideToolCalls, quotedRequest, requestText, type SimTool } from '../../src/simulator/tool-calls.js';

const tools: SimTool[] = [
  { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  { name: 'lookupStockPrice', parameters: { type: 'object', properties: { ticker: { type: 'string', pattern: '^[A-Z]{3,4}$' } }, required: ['ticker'] } },
];
const decide = (prompt: string, choice: Parameters<typeof decideToolCalls>[0]['choice'], extra: Partial<Parameters<typeof decideToolCalls>[0]> = {}) =>
  decideToolCalls({ tools, choice, isParallel: true, prompt, hasToolResults: false, ...extra }).map((c) => c.name);

/** How every simulator picks tool calls (issue 16). */
describe('decideToolCalls', () => {
  it('auto: calls the tools the prompt is about, by name or by a telling word of the name', () => {
    expect(decide('Weather in Oslo?', { mode: 'auto' })).toEqual(['get_weather']);
    expect(decide('What is the stock price and the weather?', { mode: 'auto' })).toEqual(['get_weather', 'lookupStockPrice']);
    expect(decide('Tell me a story', { mode: 'auto' })).toEqual([]);
  });

  it('auto after tool results answers instead of calling again', () => {
    expect(decide('Weather in Oslo?', { mode: 'auto' }, { hasToolResults: true })).toEqual([]);
  });

  it('required, named and none', () => {
    expect(decide('Tell me a story', { mode: 'required' })).toEqual(['get_weather']);
    expect(decide('Weather?', { mode: 'named', names: ['lookupStockPrice'] })).toEqual(['lookupStockPrice']);
    expect(decide('Weather?', { mode: 'none' })).toEqual([]);
  });

  it('parallel_tool_calls false keeps one call', () => {
    expect(decide('stock price and weather', { mode: 'auto' }, { isParallel: false })).toEqual(['get_weather']);
  });

  it('arguments follow the schema and are stable per prompt', () => {
    const [first] = decideToolCalls({ tools, choice: { mode: 'named', names: ['lookupStockPrice'] }, isParallel: true, prompt: 'p', hasToolResults: false });
    const [again] = decideToolCalls({ tools, choice: { mode: 'named', names: ['lookupStockPrice'] }, isParallel: true, prompt: 'p', hasToolResults: false });
    expect((first!.arguments as { ticker: string }).ticker).toMatch(/^[A-Z]{3,4}$/);
    expect(again).toEqual(first);
  });

  it('parallel calls only when asked for explicitly; otherwise one, however many tools the prompt names (issue 20)', () => {
    expect(decide('What is the stock price and the weather?', { mode: 'auto' }, { isParallel: false })).toEqual(['get_weather']);
    expect(decide('What is the stock price and the weather?', { mode: 'required' }, { isParallel: false })).toHaveLength(1);
  });
});

/** Agents' prompts (issue 20): the simulator must not call tools because their names are all over the context. */
describe('decideToolCalls with an agent\'s context', () => {
  const agentTools: SimTool[] = ['Read', 'Write', 'Bash', 'Edit', 'close_agent', 'spawn_agent', 'wait_agent', 'get_goal', 'update_goal', 'lookupStockPrice'].map((name) => ({
    name,
    parameters: { type: 'object', properties: {} },
  }));
  const about = (prompt: string, isParallel = true) => decideToolCalls({ tools: agentTools, choice: { mode: 'auto' }, isParallel, prompt, hasToolResults: false }).map((c) => c.name);

  it("ignores the tagged context agents put into the user's turn (Claude Code's system-reminder, Codex's environment_context)", () => {
    const reminder = '<system-reminder>\nUse Read to read files, Write to write them and Bash to run commands. Edit edits.\n</system-reminder>';
    expect(about(`${reminder}\nSay hi`)).toEqual([]);
    expect(about('<environment_context>\n  <cwd>/tmp/work</cwd>\n  <shell>bash</shell>\n</environment_context>\nSay hi')).toEqual([]);
    expect(about(`${reminder}\nRead the README`)).toEqual(['Read']);
  });

  it('matches words, not fragments: "already" is not about Read, "bashful" not about Bash', () => {
    expect(about('I already know; be bashful')).toEqual([]);
    expect(about('please read it')).toEqual(['Read']);
  });

  it('a word several tool names share (agent, goal) points at none of them; a named tool wins over hinted ones', () => {
    expect(about('Tell me about agents and goals')).toEqual([]);
    expect(about('Spawn an agent to review the patch')).toEqual(['spawn_agent']);
    expect(about('Use spawn_agent to check the stock price')).toEqual(['spawn_agent']);
    expect(about('Check the stock price')).toEqual(['lookupStockPrice']);
  });

  it('after tool results the answer is text, so a loop always ends', () => {
    expect(decideToolCalls({ tools: agentTools, choice: { mode: 'auto' }, isParallel: true, prompt: 'Read the README', hasToolResults: true })).toEqual([]);
  });
});

describe('requestText and quotedRequest', () => {
  it('drop closed context blocks, keep unclosed tags and plain comparisons', () => {
    expect(requestText('<a x="1">ctx <b>inner</b></a>ask')).toBe(' ask');
    expect(requestText('if a <b and c> d, <note>see</note> then')).toBe('if a <b and c> d,   then');
    expect(requestText('no tags at all')).toBe('no tags at all');
  });

  it("a reply quotes the user's words, not Gemini CLI's session context; a turn of context only is quoted whole", () => {
    expect(quotedRequest('<session_context>\nThis is the Gemini CLI.\n</session_context>\nSay hi')).toBe('Say hi');
    expect(quotedRequest('<environment_context>cwd</environment_context>')).toBe('<environment_context>cwd</environment_context>');
    expect(quotedRequest('Line one\n\nline two')).toBe('Line one\n\nline two');
  });
});
