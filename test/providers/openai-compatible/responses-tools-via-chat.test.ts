import { describe, expect, it } from 'vitest';
import { functionCallItems, toChatToolChoice, toChatTools } from '../../../src/providers/openai-compatible/responses-tools-via-chat.js';
import { decodeNamespacedName, encodeNamespacedName } from '../../../src/providers/openai-compatible/namespaced-tool-name.js';
import { toZhipuWebSearch } from '../../../src/providers/zhipu/web-search.js';

const schema = { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] };

/** Responses tools through a chat upstream (issue 20): translated where chat has a faithful form, otherwise a 400 naming the tool. */
describe('toChatTools', () => {
  it("Codex's tools: functions as they are, a namespace's functions flattened to <namespace>--<name>, web_search as the vendor's search", () => {
    const tools = [
      { type: 'function', name: 'exec_command', description: 'Runs a command', strict: false, parameters: schema },
      { type: 'namespace', name: 'multi_agent_v1', description: 'Sub-agents', tools: [{ type: 'function', name: 'spawn_agent', parameters: { type: 'object', properties: {} } }] },
      { type: 'web_search', external_web_access: false },
    ];
    expect(toChatTools(tools, toZhipuWebSearch)).toEqual({
      tools: [
        { type: 'function', function: { name: 'exec_command', description: 'Runs a command', parameters: schema, strict: false } },
        { type: 'function', function: { name: 'multi_agent_v1--spawn_agent', parameters: { type: 'object', properties: {} } } },
        { type: 'web_search', web_search: { enable: true, search_engine: 'search_std', search_result: true } },
      ],
    });
  });

  it('a vendor that searches by a request field gets the field', () => {
    const bySearchOptions = () => ({ fields: { web_search_options: { search_context_size: 'low' } } });
    expect(toChatTools([{ type: 'web_search_preview' }], bySearchOptions)).toEqual({ fields: { web_search_options: { search_context_size: 'low' } } });
  });

  it.each([
    ['web_search without a vendor mapping', [{ type: 'web_search' }], undefined, "'tools[0]': the web_search tool is not supported"],
    ['a custom tool', [{ type: 'custom', name: 'apply_patch' }], toZhipuWebSearch, "'tools[0]': a custom tool is not supported"],
    ['a custom tool inside a namespace', [{ type: 'namespace', name: 'ns', tools: [{ type: 'custom', name: 'c' }] }], toZhipuWebSearch, "'tools[0].tools[0]': a custom tool"],
    ['a hosted tool chat has no form for', [{ type: 'file_search', vector_store_ids: ['v'] }], toZhipuWebSearch, "'tools[0]': a file_search tool"],
    ['a function named with the reserved separator', [{ type: 'function', name: 'a--b' }], toZhipuWebSearch, "'tools[0].name': 'a--b' holds '--'"],
    ['a namespace named with the reserved separator', [{ type: 'namespace', name: 'n--s', tools: [{ type: 'function', name: 'f' }] }], toZhipuWebSearch, "'tools[0].name'"],
    ['two allowed domains for a one-domain search', [{ type: 'web_search', filters: { allowed_domains: ['a.com', 'b.com'] } }], toZhipuWebSearch, "'tools[0].filters.allowed_domains'"],
    ['a user location the search cannot take', [{ type: 'web_search', user_location: { type: 'approximate', city: 'Oslo' } }], toZhipuWebSearch, "'tools[0].user_location'"],
  ])('%s: a 400 naming it', (_name, tools, webSearch, message) => {
    expect(() => toChatTools(tools, webSearch)).toThrow(message);
  });
});

describe('toZhipuWebSearch', () => {
  it('one allowed domain and a high context size map to GLM fields', () => {
    expect(toZhipuWebSearch({ type: 'web_search', filters: { allowed_domains: ['openai.com'] }, search_context_size: 'high' }, 'tools[0]')).toEqual({
      tools: [{ type: 'web_search', web_search: { enable: true, search_engine: 'search_std', search_result: true, search_domain_filter: 'openai.com', content_size: 'high' } }],
    });
  });
});

describe('toChatToolChoice', () => {
  it('strings as they are, a function by name as chat names it, other forced choices a 400', () => {
    expect(toChatToolChoice('required')).toBe('required');
    expect(toChatToolChoice({ type: 'function', name: 'f' })).toEqual({ type: 'function', function: { name: 'f' } });
    expect(toChatToolChoice(undefined)).toBeUndefined();
    expect(() => toChatToolChoice({ type: 'allowed_tools', mode: 'auto', tools: [] })).toThrow("'tool_choice'");
  });
});

describe('namespaced names', () => {
  it('round-trip, and calls of namespaced functions come back with their namespace', () => {
    expect(decodeNamespacedName(encodeNamespacedName('mcp__github', 'create_issue'))).toEqual({ namespace: 'mcp__github', name: 'create_issue' });
    expect(decodeNamespacedName('exec_command')).toEqual({ name: 'exec_command' });
    expect(functionCallItems([{ id: 'call_9', type: 'function', function: { name: 'multi_agent_v1--spawn_agent', arguments: '{}' } }])).toEqual([
      { id: 'fc_9', type: 'function_call', status: 'completed', call_id: 'call_9', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{}' },
    ]);
  });
});
