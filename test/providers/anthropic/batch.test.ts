import { describe, expect, it } from 'vitest';
import { anthropicBatch, fromAnthropicCustomId, toAnthropicCustomId } from '../../../src/providers/anthropic/batch.js';
import { anthropic } from '../../../src/providers/anthropic/index.js';
import { goldenContext } from '../../helpers/golden.js';

// Shapes from Anthropic's Message Batches API reference and the batch processing guide.
const chat = anthropic.pairs['chat-completions']!;
const ctx = goldenContext({ model: 'alpha-sonnet-4-5-20250929', upstreamModel: 'claude-sonnet-4-5-20250929' });
const requests = [{ customId: 'r1', call: chat.toUpstream({ model: 'alpha-sonnet-4-5-20250929', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 64 }, ctx) }];

describe('Anthropic batch translators (issue 46)', () => {
  it('creates one message batch with the lines inline: custom_id and the Messages body the sync translator makes', () => {
    const call = anthropicBatch.toCreateRequest('/v1/chat/completions', requests, undefined);
    expect(call).toMatchObject({ method: 'POST', path: '/v1/messages/batches' });
    expect(call.body).toEqual({
      requests: [{ custom_id: 'r1', params: requests[0]!.call.body }],
    });
    expect((call.body as { requests: { params: { model: string } }[] }).requests[0]!.params.model).toBe('claude-sonnet-4-5-20250929');
    expect(anthropicBatch.fromCreateResponse({ id: 'msgbatch_013Zva2CMHLNnXjNJJKqJ2EF', type: 'message_batch', processing_status: 'in_progress' })).toEqual({
      upstreamId: 'msgbatch_013Zva2CMHLNnXjNJJKqJ2EF',
    });
  });

  it('polls processing_status; once ended, the results come from the batch path on the channel (not results_url)', () => {
    expect(anthropicBatch.toPollRequest('msgbatch_1')).toEqual({ method: 'GET', path: '/v1/messages/batches/msgbatch_1' });
    expect(anthropicBatch.fromPollResponse({ processing_status: 'in_progress' }, 'msgbatch_1')).toEqual({ state: 'running' });
    expect(anthropicBatch.fromPollResponse({ processing_status: 'canceling' }, 'msgbatch_1')).toEqual({ state: 'running' });
    expect(anthropicBatch.fromPollResponse({ processing_status: 'ended', results_url: 'https://elsewhere.example/results' }, 'msgbatch_1')).toEqual({
      state: 'ended',
      downloads: [{ method: 'GET', path: '/v1/messages/batches/msgbatch_1/results' }],
      inline: [],
    });
  });

  it('maps each result type: succeeded, errored (with the status the request alone gets), canceled, expired', () => {
    const message = { id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Hi' }], usage: { input_tokens: 3, output_tokens: 1 } };
    expect(anthropicBatch.fromResultLine({ custom_id: 'a', result: { type: 'succeeded', message } })).toEqual({ customId: 'a', status: 200, body: message });
    const error = { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } };
    expect(anthropicBatch.fromResultLine({ custom_id: 'b', result: { type: 'errored', error } })).toEqual({ customId: 'b', status: 400, body: error });
    expect(anthropicBatch.fromResultLine({ custom_id: 'c', result: { type: 'errored', error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } } })).toMatchObject({ status: 529 });
    expect(anthropicBatch.fromResultLine({ custom_id: 'd', result: { type: 'canceled' } })).toMatchObject({ customId: 'd', failure: { code: 'cancelled' } });
    expect(anthropicBatch.fromResultLine({ custom_id: 'e', result: { type: 'expired' } })).toMatchObject({ customId: 'e', failure: { code: 'expired' } });
  });

  it('custom_ids outside Anthropic\'s pattern go upstream encoded and come back as they were; too long ones are refused', () => {
    for (const id of ['request 1', 'req.1', 'x-looks-encoded', 'ünïcode', 'plain_id-1']) expect(fromAnthropicCustomId(toAnthropicCustomId(id))).toBe(id);
    expect(toAnthropicCustomId('plain_id-1')).toBe('plain_id-1');
    expect(toAnthropicCustomId('request 1')).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    const call = anthropicBatch.toCreateRequest('/v1/chat/completions', [{ customId: 'request 1', call: requests[0]!.call }], undefined);
    const sent = (call.body as { requests: { custom_id: string }[] }).requests[0]!.custom_id;
    expect(anthropicBatch.fromResultLine({ custom_id: sent, result: { type: 'canceled' } })).toMatchObject({ customId: 'request 1' });
    expect(anthropicBatch.customIdProblem!('a'.repeat(64))).toBeUndefined();
    expect(anthropicBatch.customIdProblem!('a'.repeat(65))).toMatch(/too long/);
  });

  it('cancels on the batch path; takes mixed models; half price', () => {
    expect(anthropicBatch.toCancelRequest('msgbatch_1')).toEqual({ method: 'POST', path: '/v1/messages/batches/msgbatch_1/cancel' });
    expect(anthropicBatch.oneModelPerBatch).toBe(false);
    expect(anthropicBatch.discount).toBe(0.5);
  });
});
