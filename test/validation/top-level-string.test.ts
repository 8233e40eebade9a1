import { describe, expect, it } from 'vitest';
import { topLevelString } from '../../src/validation/json-shape.js';

/** The look at a body's `model` before it is parsed (issue 34): only a top-level member counts. */
describe('topLevelString', () => {
  it('finds the member wherever it stands at the top level, after long and nested values', () => {
    const messages = JSON.stringify(Array.from({ length: 50 }, (_, i) => ({ role: 'user', content: `turn ${i} with "model": "decoy" in it`, model: 'nested' })));
    expect(topLevelString(`{"messages":${messages},"model":"delta-4.1"}`, 'model')).toBe('delta-4.1');
    expect(topLevelString(` {\n  "model" :\t"delta-4.1", "messages": []}`, 'model')).toBe('delta-4.1');
  });

  it('ignores members of nested objects, keys inside strings, arrays at the top and non-string values', () => {
    expect(topLevelString('{"metadata":{"model":"nested"},"messages":[]}', 'model')).toBeUndefined();
    expect(topLevelString('{"content":"\\"model\\":\\"smuggled\\""}', 'model')).toBeUndefined();
    expect(topLevelString('[{"model":"x"}]', 'model')).toBeUndefined();
    expect(topLevelString('{"model":42}', 'model')).toBeUndefined();
    expect(topLevelString('{"models":"x","model_id":"y"}', 'model')).toBeUndefined();
  });

  it('decodes escapes in the value, and gives up on text that is not JSON', () => {
    expect(topLevelString('{"model":"delta\\u002d4.1"}', 'model')).toBe('delta-4.1');
    expect(topLevelString('{"model":"unterminated', 'model')).toBeUndefined();
    expect(topLevelString('', 'model')).toBeUndefined();
  });
});
