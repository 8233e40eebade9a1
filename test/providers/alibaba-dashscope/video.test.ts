import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { videoGenerationsToDashScope } from '../../../src/providers/alibaba-dashscope/video.js';
import type { VideoAdapter } from '../../../src/contracts/video-adapter.js';
import { runVideoGoldenCases } from '../../helpers/video-golden.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/alibaba-dashscope/', import.meta.url));
const adapter = videoGenerationsToDashScope;

describe('DashScope video translators (golden cases)', () => {
  runVideoGoldenCases(FIXTURES, adapter as VideoAdapter<unknown>);
});

describe('DashScope task status mapping', () => {
  const poll = (output: Record<string, unknown>, usage?: Record<string, unknown>) => adapter.fromPollResponse({ request_id: 'r', output: { task_id: 't', ...output }, ...(usage ? { usage } : {}) });

  it('maps every documented status', () => {
    expect(poll({ task_status: 'PENDING' })).toEqual({ status: 'queued' });
    expect(poll({ task_status: 'RUNNING' })).toEqual({ status: 'in_progress' });
    expect(poll({ task_status: 'SUCCEEDED', video_url: 'https://x/v.mp4' })).toEqual({ status: 'completed', videoUrl: 'https://x/v.mp4' });
    expect(poll({ task_status: 'FAILED', code: 'InternalError', message: 'boom' })).toEqual({ status: 'failed', error: { code: 'generation_failed', message: 'boom' } });
    expect(poll({ task_status: 'CANCELED' })).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
    expect(poll({ task_status: 'UNKNOWN' })).toMatchObject({ status: 'failed', error: { code: 'expired' } });
  });

  it('rejects unknown statuses, missing results and non-task bodies as bad upstream responses', () => {
    expect(() => poll({ task_status: 'PAUSED' })).toThrow(expect.objectContaining({ code: 'GW_UPSTREAM_BAD_RESPONSE' }));
    expect(() => poll({ task_status: 'SUCCEEDED' })).toThrow(expect.objectContaining({ code: 'GW_UPSTREAM_BAD_RESPONSE' }));
    expect(() => adapter.fromPollResponse({ code: 'x' })).toThrow(expect.objectContaining({ code: 'GW_UPSTREAM_BAD_RESPONSE' }));
    expect(() => adapter.fromCreateResponse({ output: {} })).toThrow(expect.objectContaining({ code: 'GW_UPSTREAM_BAD_RESPONSE' }));
  });

  it('maps the documented synchronous errors without echoing credentials or hosts', () => {
    expect(adapter.fromUpstreamError(401, { code: 'InvalidApiKey', message: 'Invalid API-key provided.' })).toMatchObject({ code: 'GW_UPSTREAM_AUTH', status: 502 });
    expect(adapter.fromUpstreamError(400, { code: 'InvalidParameter', message: 'parameters.duration must be 3 to 15' })).toMatchObject({ code: 'GW_UPSTREAM_BAD_REQUEST', status: 400, message: 'parameters.duration must be 3 to 15' });
    expect(adapter.fromUpstreamError(400, { code: 'DataInspectionFailed', message: 'Input data may contain inappropriate content.' })).toMatchObject({ code: 'GW_UPSTREAM_CONTENT_FILTER' });
    expect(adapter.fromUpstreamError(400, { code: 'Arrearage', message: 'Access denied, please make sure your account is in good standing.' })).toMatchObject({ code: 'GW_UPSTREAM_AUTH' });
    expect(adapter.fromUpstreamError(413, { code: 'BadRequest.TooLarge' })).toMatchObject({ status: 413 });
    const leaky = adapter.fromUpstreamError(500, { code: 'InternalError', message: 'failed calling https://internal.aliyun/x with sk-abcdefghijklmnop' });
    expect(leaky.message).not.toContain('internal.aliyun');
    expect(leaky.message).not.toContain('sk-abcdefghijklmnop');
  });
});
