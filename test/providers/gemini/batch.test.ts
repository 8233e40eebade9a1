import { describe, expect, it } from 'vitest';
import { geminiBatch } from '../../../src/providers/gemini/batch.js';
import { gemini } from '../../../src/providers/gemini/index.js';
import { goldenContext } from '../../helpers/golden.js';

// Shapes from the Gemini batch mode guide and js-genai's batch converters.
const chat = gemini.pairs['chat-completions']!;
const ctx = goldenContext({ model: 'gamma-2.5-flash-lite', upstreamModel: 'gemini-2.5-flash-lite' });
const requests = [
  { customId: 'g1', call: chat.toUpstream({ model: 'gamma-2.5-flash-lite', messages: [{ role: 'user', content: 'Hi' }] }, ctx) },
  { customId: 'g2', call: chat.toUpstream({ model: 'gamma-2.5-flash-lite', messages: [{ role: 'system', content: 'Be brief' }, { role: 'user', content: 'Bye' }] }, ctx) },
];

describe('Gemini batch translators (issue 46)', () => {
  it('creates one batch on the model with the generateContent bodies inline, keyed by custom_id', () => {
    const call = geminiBatch.toCreateRequest('/v1/chat/completions', requests, undefined);
    expect(call.method).toBe('POST');
    expect(call.path).toBe('/v1beta/models/gemini-2.5-flash-lite:batchGenerateContent');
    expect(call.body).toEqual({
      batch: {
        displayName: 'gateway-batch',
        inputConfig: { requests: { requests: [{ request: requests[0]!.call.body, metadata: { key: 'g1' } }, { request: requests[1]!.call.body, metadata: { key: 'g2' } }] } },
      },
    });
    expect(geminiBatch.fromCreateResponse({ name: 'batches/123456', metadata: { state: 'BATCH_STATE_PENDING' } })).toEqual({ upstreamId: '123456' });
  });

  it('polls the Operation: running while pending or running, then the inlined responses', () => {
    expect(geminiBatch.toPollRequest('123456')).toEqual({ method: 'GET', path: '/v1beta/batches/123456' });
    expect(geminiBatch.fromPollResponse({ name: 'batches/123456', metadata: { state: 'BATCH_STATE_RUNNING' } }, '123456')).toEqual({ state: 'running' });
    const inlined = [{ response: { candidates: [] }, metadata: { key: 'g1' } }];
    expect(geminiBatch.fromPollResponse({ name: 'batches/123456', done: true, metadata: { state: 'BATCH_STATE_SUCCEEDED', output: { inlinedResponses: { inlinedResponses: inlined } } } }, '123456')).toEqual({
      state: 'ended',
      downloads: [],
      inline: inlined,
      failure: undefined,
    });
  });

  it('reads an inlined response or error (google.rpc code to the HTTP status) by its key; cancels by id', () => {
    expect(geminiBatch.fromResultLine({ response: { candidates: [] }, metadata: { key: 'g1' } })).toEqual({ customId: 'g1', status: 200, body: { candidates: [] } });
    expect(geminiBatch.fromResultLine({ error: { code: 3, message: 'Invalid', status: 'INVALID_ARGUMENT' }, metadata: { key: 'g2' } })).toEqual({
      customId: 'g2',
      status: 400,
      body: { error: { code: 400, message: 'Invalid', status: 'INVALID_ARGUMENT' } },
    });
    expect(geminiBatch.toCancelRequest('123456')).toEqual({ method: 'POST', path: '/v1beta/batches/123456:cancel' });
    expect(geminiBatch.oneModelPerBatch).toBe(true);
  });
});
