import { describe, expect, it } from 'vitest';
import { openaiBatch } from '../../../src/providers/openai/batch.js';
import { openai } from '../../../src/providers/openai/index.js';
import { parseMultipartText } from '../../../src/simulator/batch-store.js';
import { isGatewayError } from '../../../src/errors.js';
import { goldenContext } from '../../helpers/golden.js';

// Shapes from the OpenAI API reference (Files, Batch) and the batch guide's input/output lines.
const chat = openai.pairs['chat-completions']!;
const requests = [
  { customId: 'r1', call: chat.toUpstream({ model: 'delta-4.1', messages: [{ role: 'user', content: 'Hi' }] }, goldenContext({ model: 'delta-4.1', upstreamModel: 'gpt-4.1' })) },
  { customId: 'r2', call: chat.toUpstream({ model: 'delta-4.1', messages: [{ role: 'user', content: 'Bye' }], max_tokens: 5 }, goldenContext({ model: 'delta-4.1', upstreamModel: 'gpt-4.1' })) },
];

describe('OpenAI batch translators (issue 46)', () => {
  it('uploads the lines as one JSONL file (purpose batch) whose lines carry the upstream model and the endpoint url', () => {
    const call = openaiBatch.toUploadRequest!('/v1/chat/completions', requests);
    expect(call.method).toBe('POST');
    expect(call.path).toBe('/files');
    const parts = parseMultipartText(call.body as string, call.headers!['content-type']);
    expect(parts.get('purpose')).toEqual({ value: 'batch' });
    expect(parts.get('file')!.filename).toBe('batch.jsonl');
    const lines = parts.get('file')!.value.trim().split('\n').map((line) => JSON.parse(line) as unknown);
    expect(lines).toEqual([
      { custom_id: 'r1', method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4.1', messages: [{ role: 'user', content: 'Hi' }] } },
      { custom_id: 'r2', method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4.1', messages: [{ role: 'user', content: 'Bye' }], max_tokens: 5 } },
    ]);
    expect(openaiBatch.fromUploadResponse!({ id: 'file-abc', object: 'file', purpose: 'batch' })).toEqual({ fileId: 'file-abc' });
  });

  it('creates the batch over the uploaded file with a 24h window', () => {
    expect(openaiBatch.toCreateRequest('/v1/chat/completions', requests, { fileId: 'file-abc' })).toEqual({
      method: 'POST',
      path: '/batches',
      body: { input_file_id: 'file-abc', endpoint: '/v1/chat/completions', completion_window: '24h' },
    });
    expect(openaiBatch.fromCreateResponse({ id: 'batch_abc123', object: 'batch', status: 'validating' })).toEqual({ upstreamId: 'batch_abc123' });
  });

  it('polls the batch: running until a terminal status, then its output and error files to download', () => {
    expect(openaiBatch.toPollRequest('batch_abc123')).toEqual({ method: 'GET', path: '/batches/batch_abc123' });
    for (const status of ['validating', 'in_progress', 'finalizing', 'cancelling']) expect(openaiBatch.fromPollResponse({ status }, 'batch_abc123')).toEqual({ state: 'running' });
    expect(openaiBatch.fromPollResponse({ status: 'completed', output_file_id: 'file-out', error_file_id: 'file-err' }, 'batch_abc123')).toEqual({
      state: 'ended',
      downloads: [
        { method: 'GET', path: '/files/file-out/content' },
        { method: 'GET', path: '/files/file-err/content' },
      ],
      inline: [],
      failure: undefined,
    });
    expect(openaiBatch.fromPollResponse({ status: 'failed', errors: { object: 'list', data: [{ code: 'invalid_json_line', message: 'Line 1 is not JSON', line: 1 }] } }, 'b')).toEqual({
      state: 'ended',
      downloads: [],
      inline: [],
      failure: 'Line 1 is not JSON',
    });
  });

  it('reads output lines as HTTP answers and error-file lines without one as failures', () => {
    const body = { id: 'chatcmpl-1', object: 'chat.completion' };
    expect(openaiBatch.fromResultLine({ id: 'batch_req_1', custom_id: 'r1', response: { status_code: 200, request_id: 'req_1', body }, error: null })).toEqual({ customId: 'r1', status: 200, body });
    expect(openaiBatch.fromResultLine({ id: 'batch_req_2', custom_id: 'r2', response: null, error: { code: 'batch_expired', message: 'expired' } })).toEqual({
      customId: 'r2',
      failure: { code: 'expired', message: 'The batch expired before this request ran' },
    });
    expect(openaiBatch.fromResultLine({ custom_id: 'r3', response: null, error: { code: 'batch_cancelled', message: 'x' } })).toMatchObject({ failure: { code: 'cancelled' } });
  });

  it('cancels by id, and maps batch API errors without echoing the upstream body', () => {
    expect(openaiBatch.toCancelRequest('batch_abc123')).toEqual({ method: 'POST', path: '/batches/batch_abc123/cancel' });
    const error = openaiBatch.fromUpstreamError(401, { error: { message: 'Incorrect API key provided: sk-proj-abcdefghijklmnop' } });
    expect(isGatewayError(error)).toBe(true);
    expect(error.message).not.toContain('sk-proj');
  });

  it('is native by default for OpenAI itself and the simulator, not for other OpenAI-compatible servers', () => {
    expect(openaiBatch.nativeByDefault(undefined)).toBe(true);
    expect(openaiBatch.nativeByDefault('https://api.openai.com/v1')).toBe(true);
    expect(openaiBatch.nativeByDefault('http://vllm.internal:8000/v1')).toBe(false);
    expect(openaiBatch.discount).toBe(0.5);
  });
});
