import { describe, expect, it } from 'vitest';
import { rewriteChunkText, rewriteCompletionText } from '../../../src/providers/openai-compatible/raw-chunk.js';

const chunk = (extra: string) => `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]${extra}}`;

describe('same-protocol stream fast path (issue 5)', () => {
  it('renames the model and drops a null usage without parsing, byte for byte what parsing would give', () => {
    const text = rewriteChunkText(chunk(',"usage":null'), 'delta-4.1', false)!;
    expect(text).toBe(chunk('').replace('gpt-4.1', 'delta-4.1'));
    expect(JSON.parse(text)).toEqual({ ...JSON.parse(chunk('')), model: 'delta-4.1' });
    expect(rewriteChunkText(chunk(',"usage":null'), 'delta-4.1', true)).toBe(chunk(',"usage":null').replace('gpt-4.1', 'delta-4.1'));
  });

  it('hands anything unusual to the parsing path', () => {
    expect(rewriteChunkText(chunk(',"usage":{"prompt_tokens":1}'), 'm', false)).toBeUndefined();
    expect(rewriteChunkText('{"error":{"message":"boom"}}', 'm', false)).toBeUndefined();
    expect(rewriteChunkText('{"id":"c","model":"x","choices":[]}', 'm', false)).toBeUndefined();
    expect(rewriteChunkText(chunk('').replace('"finish_reason":null', '"finish_reason":"sensitive"'), 'm', false)).toBeUndefined();
    expect(rewriteChunkText(chunk('').replace('"model":"gpt-4.1"', '"model": "gpt-4.1"'), 'm', false)).toBeUndefined();
    // A second choice with an unusual finish reason, a key seen twice, usage placed before the model.
    const twoChoices = chunk('').replace('"finish_reason":null}]', '"finish_reason":"stop"},{"index":1,"delta":{},"finish_reason":"sensitive"}]');
    expect(rewriteChunkText(twoChoices, 'm', false)).toBeUndefined();
    expect(rewriteChunkText(chunk(',"model":"other"'), 'm', false)).toBeUndefined();
    expect(rewriteChunkText(chunk('').replace('{"id"', '{"usage":null,"id"'), 'm', false)).toBeUndefined();
    expect(rewriteChunkText(chunk(',"usage":null').replace('"content":"hi"', '"content":"x","error":"y"'), 'm', false)).toBeUndefined();
  });

  it('passes several plain choices, and drops a null usage wherever it sits after the model', () => {
    const two = chunk('').replace('"finish_reason":null}]', '"finish_reason":"stop"},{"index":1,"delta":{},"finish_reason":"length"}]');
    expect(JSON.parse(rewriteChunkText(two, 'delta-4.1', false)!)).toEqual({ ...JSON.parse(two), model: 'delta-4.1' });
    const usageFirst = '{"id":"c","model":"gpt-4.1","usage":null,"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}';
    const text = rewriteChunkText(usageFirst, 'delta-4.1', false)!;
    expect(JSON.parse(text)).toEqual({ id: 'c', model: 'delta-4.1', choices: JSON.parse(usageFirst).choices });
  });

  it('adds "usage":null when the client asked for usage and the vendor leaves it out', () => {
    expect(JSON.parse(rewriteChunkText(chunk(''), 'delta-4.1', true)!)).toEqual({ ...JSON.parse(chunk('')), model: 'delta-4.1', usage: null });
  });

  it('is not fooled by keys quoted inside content', () => {
    const tricky = '{"id":"c","model":"gpt-4.1","choices":[{"index":0,"delta":{"content":"say \\"usage\\":{ and \\"error\\""},"finish_reason":"stop"}],"usage":null}';
    const text = rewriteChunkText(tricky, 'delta-4.1', false)!;
    expect(JSON.parse(text)).toEqual({ ...JSON.parse(tricky), model: 'delta-4.1', usage: undefined });
    expect(text).not.toContain('"usage":null');
  });

  it('rewrites a whole completion and reads nested usage without parsing the body', () => {
    const body = {
      id: 'c', object: 'chat.completion', created: 1, model: 'gpt-4.1',
      choices: [{ index: 0, message: { role: 'assistant', content: 'a "usage":{ lookalike' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7, completion_tokens_details: { reasoning_tokens: 1 } },
    };
    const fast = rewriteCompletionText(JSON.stringify(body), 'delta-4.1')!;
    expect(JSON.parse(fast.text)).toEqual({ ...body, model: 'delta-4.1' });
    expect(fast.usage).toEqual(body.usage);
    expect(rewriteCompletionText(JSON.stringify({ ...body, choices: [{ ...body.choices[0], finish_reason: 'sensitive' }] }), 'm')).toBeUndefined();
    expect(rewriteCompletionText(JSON.stringify({ ...body, object: undefined }), 'm')).toBeUndefined();
    expect(rewriteCompletionText(JSON.stringify({ ...body, usage: undefined }), 'm')).toBeUndefined();
  });
});
