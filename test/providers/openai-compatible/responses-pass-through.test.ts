import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors.js';
import { parseSseText } from '../../../src/sse/parse.js';
import { volcengineArk } from '../../../src/providers/volcengine-ark/index.js';
import { goldenContext, loadCases, runStream } from '../../helpers/golden.js';
import { checkResponsesGoldenCase, payloads } from '../../helpers/responses-golden.js';

const pair = volcengineArk.pairs.responses!;
const ctx = goldenContext({ model: 'beta-seed-2.0-pro', upstreamModel: 'doubao-seed-2-0-pro-260215', requestId: 'req_abc', now: 1718000003 });
const frame = (data: Record<string, unknown>) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
const created = frame({ type: 'response.created', sequence_number: 0, response: { id: 'resp_up', object: 'response', created_at: 1718000000, model: 'doubao-seed-2-0-pro-260215', status: 'in_progress', output: [], usage: null } });

describe('responses → volcengine-ark (pass-through) golden cases', () => {
  for (const golden of loadCases('volcengine-ark', (name) => name.startsWith('responses-'))) {
    it(`${golden.name}: ${golden.meta.description}`, () => checkResponsesGoldenCase(pair, golden));
  }
});

describe('responses → volcengine-ark stream edge cases', () => {
  it('a stream without response.completed is an error, never a quiet finish', async () => {
    await expect(runStream(pair.createStreamTranslator(ctx), created)).rejects.toThrow(/ended before the response was complete/);
  });

  it('onError ends with response.failed: same response id, the next sequence number, status failed', async () => {
    const translator = pair.createStreamTranslator(ctx);
    for (const event of await parseSseText(created)) translator.onEvent(event);
    const [failed] = payloads(translator.onError(new GatewayError('GW_UPSTREAM_ERROR', 'The upstream stream ended unexpectedly')).map((e) => ({ data: e.data })));
    expect(failed).toEqual({
      type: 'response.failed',
      sequence_number: 1,
      response: {
        id: 'resp_up',
        object: 'response',
        created_at: 1718000000,
        model: 'beta-seed-2.0-pro',
        status: 'failed',
        error: { code: 'upstream_error', message: 'The upstream stream ended unexpectedly' },
        incomplete_details: null,
        output: [],
        usage: null,
      },
    });
  });

  it("an upstream error event becomes our error (so the stream fails), without the upstream's text", async () => {
    const translator = pair.createStreamTranslator(ctx);
    const [event] = await parseSseText(frame({ type: 'error', sequence_number: 3, code: 'InternalServiceError', message: 'boom at 10.0.0.1', param: null }));
    expect(() => translator.onEvent(event!)).toThrow(GatewayError);
    try {
      translator.onEvent(event!);
    } catch (error) {
      expect((error as GatewayError).code).toBe('GW_UPSTREAM_ERROR');
      expect((error as GatewayError).message).not.toContain('10.0.0.1');
    }
  });

  it('missing or stale upstream sequence numbers are replaced so the client sees them strictly increase', async () => {
    const translator = pair.createStreamTranslator(ctx);
    const text = created + frame({ type: 'response.in_progress', response: { id: 'resp_up', created_at: 1718000000, model: 'x', status: 'in_progress', output: [] } }) + frame({ type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: {} });
    const out: number[] = [];
    for (const event of await parseSseText(text)) out.push(...payloads(translator.onEvent(event).map((e) => ({ data: e.data }))).map((p) => p.sequence_number));
    expect(out).toEqual([0, 1, 2]);
  });

  it('upstream errors map by status and never echo upstream bodies beyond a sanitised 400 message', () => {
    const body = { error: { code: 'InvalidParameter', message: 'max_output_tokens too large. Request ID: 0217', param: '', type: 'BadRequest' } };
    const bad = pair.fromUpstreamError(400, body);
    expect({ status: bad.status, code: bad.code }).toEqual({ status: 400, code: 'GW_UPSTREAM_BAD_REQUEST' });
    expect(bad.message).toContain('max_output_tokens too large');
    const auth = pair.fromUpstreamError(401, { error: { code: 'AuthenticationError', message: 'key sk-abcdefghijkl is invalid', type: 'Unauthorized' } });
    expect({ status: auth.status, code: auth.code }).toEqual({ status: 502, code: 'GW_UPSTREAM_AUTH' });
    expect(auth.message).not.toContain('sk-');
    expect(pair.fromUpstreamError(429, {}).status).toBe(429);
  });

  it("a failed Response passes through as failed, its error in our words, without the upstream's text", () => {
    const upstream = { id: 'resp_up', object: 'response', created_at: 1718000000, model: 'doubao-seed-2-0-pro-260215', status: 'failed', error: { code: 'InternalServiceError', message: 'node 10.0.0.1 crashed' }, incomplete_details: null, output: [], usage: null };
    const { body } = pair.fromUpstream(upstream, ctx);
    expect(body).toMatchObject({ status: 'failed', model: 'beta-seed-2.0-pro', error: { code: 'upstream_error', message: 'The upstream provider failed' } });
    expect(body.completed_at).toBeUndefined();
  });

  it('a body that is not a Response is a bad upstream response', () => {
    expect(() => pair.fromUpstream({ choices: [] }, ctx)).toThrow(/not a Response/);
  });
});
