import { describe, expect, it } from 'vitest';
import { encryptReasoning, pickResponsesCalls, unverifiableReasoning } from '../../src/providers/openai-compatible/simulator-responses-agent.js';

/** The Responses simulator as an agent's model (issue 20). */
describe('Responses simulator: reasoning encrypted_content', () => {
  it('accepts its own encrypted reasoning back, and refuses it changed by a byte or minted elsewhere', () => {
    const encrypted = encryptReasoning('rs_1', 12);
    expect(unverifiableReasoning([{ type: 'reasoning', id: 'rs_1', encrypted_content: encrypted }, { type: 'reasoning', id: 'rs_2', encrypted_content: null }])).toBeUndefined();
    const changed = encrypted.slice(0, -1) + (encrypted.endsWith('A') ? 'B' : 'A');
    expect(unverifiableReasoning([{ type: 'reasoning', id: 'rs_1', encrypted_content: changed }])).toBe('rs_1');
    expect(unverifiableReasoning([{ type: 'reasoning', id: 'rs_3', encrypted_content: 'gAAAAB-from-another-vendor' }])).toBe('rs_3');
  });
});

describe('Responses simulator: calls', () => {
  const tools = [
    { type: 'function', name: 'exec_command', parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] } },
    { type: 'namespace', name: 'multi_agent_v1', description: 'Sub-agents', tools: [{ type: 'function', name: 'spawn_agent', parameters: { type: 'object', properties: {} } }] },
    { type: 'custom', name: 'apply_patch', description: 'Apply a patch' },
    { type: 'web_search', external_web_access: false },
  ];

  it('a namespaced function is called with its namespace, a custom tool with a text input, the hosted search never', () => {
    expect(pickResponsesCalls({ tools }, 'Spawn an agent', false)).toEqual([
      { type: 'function_call', id: expect.stringMatching(/^fc_/), call_id: expect.stringMatching(/^call_/), name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{}', status: 'completed' },
    ]);
    expect(pickResponsesCalls({ tools }, 'Use apply_patch', false)).toEqual([
      { type: 'custom_tool_call', id: expect.stringMatching(/^ctc_/), call_id: expect.any(String), name: 'apply_patch', input: 'input for apply_patch', status: 'completed' },
    ]);
    expect(pickResponsesCalls({ tools }, 'Search the web for news', false)).toEqual([]);
  });

  it('several calls only with parallel_tool_calls true; none after tool results', () => {
    expect(pickResponsesCalls({ tools }, 'Use exec_command and apply_patch', false)).toHaveLength(1);
    expect(pickResponsesCalls({ tools, parallel_tool_calls: true }, 'Use exec_command and apply_patch', false)).toHaveLength(2);
    expect(pickResponsesCalls({ tools, parallel_tool_calls: true }, 'Use exec_command', true)).toEqual([]);
  });
});
