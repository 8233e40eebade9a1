import { describe, expect, it } from 'vitest';
import { decideToolCalls, type SimTool } from '../../src/simulator/tool-calls.js';

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
});
