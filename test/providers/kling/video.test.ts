import { createHmac } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { klingAuthHeaders, signKlingJwt } from '../../../src/providers/kling/endpoint.js';
import { videoaltToKling } from '../../../src/providers/kling/video.js';
import type { VideoAdapter } from '../../../src/contracts/video-adapter.js';
import { runVideoGoldenCases } from '../../helpers/video-golden.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/kling/', import.meta.url));
const adapter = videoaltToKling;
const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

describe('Kling video translators (golden cases)', () => {
  runVideoGoldenCases(FIXTURES, adapter as VideoAdapter<unknown>);
});

describe('Kling task status and error mapping', () => {
  const poll = (data: Record<string, unknown>) => adapter.fromPollResponse({ code: 0, message: 'SUCCEED', request_id: 'r', data: { task_id: 't', created_at: 1, updated_at: 1, ...data } });

  it('maps every documented status', () => {
    expect(poll({ task_status: 'submitted' })).toEqual({ status: 'queued' });
    expect(poll({ task_status: 'processing' })).toEqual({ status: 'in_progress' });
    expect(poll({ task_status: 'succeed', task_result: { videos: [{ id: 'v', url: 'https://x/v.mp4', duration: '5' }] } })).toEqual({ status: 'completed', videoUrl: 'https://x/v.mp4', durationSeconds: 5 });
    expect(poll({ task_status: 'failed' })).toMatchObject({ status: 'failed', error: { code: 'generation_failed' } });
    expect(() => poll({ task_status: 'succeeded' })).toThrow(expect.objectContaining({ code: 'GW_UPSTREAM_BAD_RESPONSE' }));
  });

  it('treats a non-zero code under HTTP 200 as an error', () => {
    expect(() => adapter.fromCreateResponse({ code: 1102, message: 'resource pack depleted', request_id: 'r' })).toThrow(expect.objectContaining({ code: 'GW_UPSTREAM_AUTH' }));
  });

  it('maps business codes by meaning', () => {
    expect(adapter.fromUpstreamError(401, { code: 1004, message: 'expired' })).toMatchObject({ code: 'GW_UPSTREAM_AUTH', status: 502 });
    expect(adapter.fromUpstreamError(400, { code: 1201, message: 'duration is invalid' })).toMatchObject({ code: 'GW_UPSTREAM_BAD_REQUEST', message: 'duration is invalid' });
    expect(adapter.fromUpstreamError(400, { code: 1301, message: 'content security policy' })).toMatchObject({ code: 'GW_UPSTREAM_CONTENT_FILTER' });
    expect(adapter.fromUpstreamError(503, { code: 5001, message: 'maintenance' })).toMatchObject({ code: 'GW_UPSTREAM_UNAVAILABLE' });
    expect(adapter.fromUpstreamError(504, { code: 5002, message: 'backlog' })).toMatchObject({ code: 'GW_UPSTREAM_TIMEOUT' });
  });

  it('polls on the capability that created the task', () => {
    expect(adapter.toPollRequest({ upstreamId: '42', capability: 'multi-image2video' })).toEqual({ method: 'GET', path: '/v1/videos/multi-image2video/42' });
    expect(() => adapter.toPollRequest({ upstreamId: '42', capability: null })).toThrow();
  });
});

describe('Kling JWT (kling.md "Auth")', () => {
  it('signs HS256 with iss = AccessKey, exp = now+1800, nbf = now-5', () => {
    const token = signKlingJwt('ak-test', 'sk-test', 1_700_000_000);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    expect(decode(header)).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(decode(payload)).toEqual({ iss: 'ak-test', exp: 1_700_001_800, nbf: 1_699_999_995 });
    expect(signature).toBe(createHmac('sha256', 'sk-test').update(`${header}.${payload}`).digest('base64url'));
  });

  it('reuses a token until shortly before it expires, then signs a new one', () => {
    const headers = klingAuthHeaders();
    const credentials = { access_key: 'ak', secret_key: 'sk' };
    const first = headers(credentials, 1_000_000).authorization;
    expect(headers(credentials, 1_000_600).authorization).toBe(first);
    const later = headers(credentials, 1_001_600).authorization;
    expect(later).not.toBe(first);
    expect(decode(later!.split('.')[1]!).exp).toBe(1_003_400);
    expect(headers({ access_key: 'other', secret_key: 'sk' }, 1_000_000).authorization).not.toBe(first);
    expect(headers({}, 1_000_000)).toEqual({});
  });
});
