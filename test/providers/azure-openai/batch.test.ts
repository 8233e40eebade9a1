import { describe, expect, it } from 'vitest';
import { azureOpenAIBatch } from '../../../src/providers/azure-openai/batch.js';
import { azureRouteCall } from '../../../src/providers/azure-openai/endpoint.js';
import { azureOpenAI } from '../../../src/providers/azure-openai/index.js';
import { parseMultipartText } from '../../../src/simulator/batch-store.js';
import { goldenContext } from '../../helpers/golden.js';

// Microsoft's batch guide: input lines name `/chat/completions` and the deployment as `model`.
const chat = azureOpenAI.pairs['chat-completions']!;
const requests = [{ customId: 'task-0', call: chat.toUpstream({ model: 'delta-4.1', messages: [{ role: 'user', content: 'Hi' }] }, goldenContext({ model: 'delta-4.1', upstreamModel: 'gpt-4o-batch' })) }];

describe('Azure OpenAI batch translators (issue 46)', () => {
  it('uploads JSONL lines whose url is the operation and whose model is the deployment', () => {
    const call = azureOpenAIBatch.toUploadRequest!('/v1/chat/completions', requests);
    expect(call.path).toBe('/openai/files');
    const file = parseMultipartText(call.body as string, call.headers!['content-type']).get('file')!;
    expect(JSON.parse(file.value.trim())).toEqual({ custom_id: 'task-0', method: 'POST', url: '/chat/completions', body: { model: 'gpt-4o-batch', messages: [{ role: 'user', content: 'Hi' }] } });
    expect(azureOpenAIBatch.toCreateRequest('/v1/chat/completions', requests, { fileId: 'file-1' })).toEqual({
      method: 'POST',
      path: '/openai/batches',
      body: { input_file_id: 'file-1', endpoint: '/chat/completions', completion_window: '24h' },
    });
  });

  it('polls, downloads and cancels on the resource paths: api-version when the channel has one, else the v1 form', () => {
    const poll = azureOpenAIBatch.toPollRequest('batch_1');
    expect(azureRouteCall(poll, { api_version: '2024-10-21' })).toEqual({ method: 'GET', path: '/openai/batches/batch_1', query: { 'api-version': '2024-10-21' } });
    expect(azureRouteCall(poll, {})).toEqual({ method: 'GET', path: '/openai/v1/batches/batch_1' });
    const ended = azureOpenAIBatch.fromPollResponse({ status: 'completed', output_file_id: 'file-o', error_file_id: null }, 'batch_1');
    expect(ended).toMatchObject({ state: 'ended', downloads: [{ method: 'GET', path: '/openai/files/file-o/content' }] });
    expect(azureRouteCall({ method: 'GET', path: '/openai/files/file-o/content' }, {})).toMatchObject({ path: '/openai/v1/files/file-o/content' });
    expect(azureRouteCall(azureOpenAIBatch.toCancelRequest('batch_1'), {})).toMatchObject({ method: 'POST', path: '/openai/v1/batches/batch_1/cancel' });
    expect(azureOpenAIBatch.endpoints).toEqual(['/v1/chat/completions', '/v1/embeddings']);
  });
});
