import { describe, expect, it } from 'vitest';
import { geminiToChatRequest } from '../../../src/providers/chat-hub/gemini-to-chat.js';
import { createGeminiFromChatStream } from '../../../src/providers/chat-hub/gemini-from-chat-stream.js';
import type { GenerateContentCall } from '../../../src/protocols/gemini-generate/types.js';
import type { OpenAIChatChunk } from '../../../src/protocols/openai-chat/types.js';
import type { TranslateContext } from '../../../src/contracts/translator.js';

const ctx: TranslateContext = { model: 'gamma-2.5-flash-lite', upstreamModel: 'gpt-4.1', requestId: 'req_r1', now: 1, includeUsage: false };

describe('Gemini generateContent → chat request (issue 20)', () => {
  it('maps system, turns, function calls and their responses (by name when they have no id), tools and config', () => {
    const call: GenerateContentCall = {
      method: 'streamGenerateContent',
      body: {
        systemInstruction: { parts: [{ text: 'You are Gemini CLI.' }] },
        contents: [
          { role: 'user', parts: [{ text: '<session_context>' }, { text: 'Read notes.txt' }] },
          { role: 'model', parts: [{ text: 'thinking…', thought: true }, { functionCall: { name: 'read_file', args: { path: 'notes.txt' } }, thoughtSignature: 'sig' }] },
          { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: { output: 'hello' } } }] },
        ],
        tools: [{ functionDeclarations: [{ name: 'read_file', parameters: { type: 'OBJECT', properties: { path: { type: 'STRING' } }, required: ['path'] } }] }],
        toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['read_file'] } },
        generationConfig: { temperature: 0.2, maxOutputTokens: 100, thinkingConfig: { includeThoughts: true } },
        safetySettings: [],
      },
    };
    expect(geminiToChatRequest(call, ctx)).toEqual({
      model: 'gamma-2.5-flash-lite',
      messages: [
        { role: 'system', content: 'You are Gemini CLI.' },
        { role: 'user', content: [{ type: 'text', text: '<session_context>' }, { type: 'text', text: 'Read notes.txt' }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_req_r1_h0', type: 'function', function: { name: 'read_file', arguments: '{"path":"notes.txt"}' } }] },
        { role: 'tool', tool_call_id: 'call_req_r1_h0', content: '{"output":"hello"}' },
      ],
      tools: [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } }],
      tool_choice: { type: 'function', function: { name: 'read_file' } },
      temperature: 0.2,
      max_tokens: 100,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it.each([
    [{ tools: [{ googleSearch: {} }] }, "'tools[0].googleSearch'"],
    [{ cachedContent: 'cachedContents/1' }, "'cachedContent'"],
    [{ generationConfig: { responseModalities: ['TEXT', 'IMAGE'] } }, "'generationConfig.responseModalities'"],
  ])('refuses what chat cannot carry (%j)', (extra, param) => {
    const call = { method: 'generateContent', body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], ...extra } } as GenerateContentCall;
    expect(() => geminiToChatRequest(call, ctx)).toThrow(expect.objectContaining({ status: 400, message: expect.stringContaining(param) }));
  });
});

describe('chat chunks → Gemini stream (issue 20)', () => {
  const chunk = (delta: OpenAIChatChunk['choices'][number]['delta'], finish: OpenAIChatChunk['choices'][number]['finish_reason'] = null): OpenAIChatChunk => ({
    id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }],
  });

  it('streams text, sends a tool call whole at the end with the finish reason and usage', () => {
    const stream = createGeminiFromChatStream({ ...ctx, hidesReasoning: true });
    const events = [
      ...stream.onChunk(chunk({ reasoning_content: 'hidden' })),
      ...stream.onChunk(chunk({ content: 'Reading.' })),
      ...stream.onChunk(chunk({ tool_calls: [{ index: 0, id: 'call_9', function: { name: 'read_file', arguments: '{"pa' } }] })),
      ...stream.onChunk(chunk({ tool_calls: [{ index: 0, function: { arguments: 'th":"a"}' } }] }, 'tool_calls')),
      ...stream.onChunk({ ...chunk({}), choices: [], usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 } }),
      ...stream.onEnd(),
    ].map((event) => event.data);
    expect(events).toEqual([
      { candidates: [{ content: { role: 'model', parts: [{ text: 'Reading.' }] }, index: 0 }], modelVersion: 'gamma-2.5-flash-lite', responseId: 'r1' },
      {
        candidates: [{ content: { role: 'model', parts: [{ functionCall: { id: 'call_9', name: 'read_file', args: { path: 'a' } } }] }, index: 0, finishReason: 'STOP' }],
        modelVersion: 'gamma-2.5-flash-lite',
        responseId: 'r1',
        usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 4, totalTokenCount: 13 },
      },
    ]);
  });
});
