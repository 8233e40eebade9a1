import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeBatchFor, NO_UPSTREAM_BATCH, type NativeBatchExecutor } from '../../src/batches/native-batch.js';
import type { BatchLine, BatchLineOutcome } from '../../src/contracts/batch-line.js';
import { ChannelBuilder } from '../../src/gateway/build-channels.js';
import type { Channel } from '../../src/gateway/channel.js';
import { UpstreamClient } from '../../src/gateway/upstream-client.js';
import type { ChannelConfig } from '../../src/config/schema.js';
import { startFakeBatchVendor, type FakeBatchVendor } from '../helpers/fake-batch-vendor.js';

const API_KEY = 'sk-fake-batch-key-0123456789';
const signal = new AbortController().signal;

const line = (customId: string, content: string, model = 'delta-4.1'): BatchLine => ({ customId, line: 1, model, body: { model, messages: [{ role: 'user', content }] } });

async function collect(results: AsyncIterable<BatchLineOutcome>): Promise<Map<string, BatchLineOutcome>> {
  const out = new Map<string, BatchLineOutcome>();
  for await (const outcome of results) out.set(outcome.customId, outcome);
  return out;
}

async function untilEnded(executor: NativeBatchExecutor, channel: Channel, upstreamId: string): Promise<void> {
  await expect.poll(async () => (await executor.poll(channel, upstreamId, signal)).state, { timeout: 10_000, interval: 20 }).toBe('ended');
}

describe('native OpenAI batches through a vendor with files and batches (issue 46)', () => {
  let vendor: FakeBatchVendor;
  let builder: ChannelBuilder;
  let channels: Channel[];
  const upstream = new UpstreamClient();
  const channel = (name: string) => channels.find((c) => c.name === name)!;

  beforeAll(async () => {
    vendor = await startFakeBatchVendor(API_KEY);
    builder = new ChannelBuilder({ batch_delay_ms: 50 });
    const configs: ChannelConfig[] = [
      { name: 'native-openai', vendor: 'openai', base_url: `${vendor.url}/v1`, api_key: API_KEY, models: { 'delta-4.1': 'gpt-4.1', 'delta-mini': 'gpt-4.1-mini' }, batch: 'native' },
      { name: 'self-hosted', vendor: 'openai', base_url: `${vendor.url}/v1`, api_key: API_KEY, models: { 'delta-4.1': 'gpt-4.1' } },
      { name: 'gateway-only', vendor: 'openai', base_url: 'https://api.openai.com/v1', api_key: API_KEY, models: { 'delta-4.1': 'gpt-4.1' }, batch: 'gateway' },
    ];
    channels = await builder.build(configs);
  });

  afterAll(async () => {
    await builder.close();
    await upstream.close();
    await vendor.close();
  });

  it('sends the lines as ONE upstream batch (one upload, one create, no chat call), downloads each result file once and joins on custom_id', async () => {
    const executor = nativeBatchFor(channel('native-openai'), '/v1/chat/completions', { upstream })!;
    expect(executor.oneModelPerBatch).toBe(true);
    const { upstreamId, refused } = await executor.submit(channel('native-openai'), '/v1/chat/completions', [line('r1', 'one'), line('r2', 'two'), line('bad1', 'three')], signal);
    expect(refused).toEqual([]);
    const paths = () => vendor.calls.map((call) => `${call.method} ${call.path}`);
    expect(paths()).toEqual(['POST /v1/files', 'POST /v1/batches']);
    const input = [...vendor.uploads.values()][0]!.trim().split('\n').map((text) => JSON.parse(text) as { custom_id: string; url: string; body: { model: string } });
    expect(input.map((entry) => [entry.custom_id, entry.url, entry.body.model])).toEqual([
      ['r1', '/v1/chat/completions', 'gpt-4.1'],
      ['r2', '/v1/chat/completions', 'gpt-4.1'],
      ['bad1', '/v1/chat/completions', 'gpt-4.1'],
    ]);

    await untilEnded(executor, channel('native-openai'), upstreamId);
    const outcomes = await collect(executor.results(channel('native-openai'), upstreamId, '/v1/chat/completions', signal, { modelOf: () => 'delta-4.1' }));
    expect([...outcomes.keys()].sort()).toEqual(['bad1', 'r1', 'r2']);
    const r1 = outcomes.get('r1') as Extract<BatchLineOutcome, { response: unknown }>;
    expect(r1.response.statusCode).toBe(200);
    expect(r1.response.body).toMatchObject({ object: 'chat.completion', model: 'delta-4.1', choices: [{ message: { role: 'assistant', content: 'Answer to one' } }], usage: { prompt_tokens: 11, completion_tokens: 4 } });
    expect(r1.usage).toEqual({ inputTokens: 11, outputTokens: 4 });
    const bad = outcomes.get('bad1') as Extract<BatchLineOutcome, { response: unknown }>;
    expect(bad.response.statusCode).toBe(400);
    expect(bad.response.body).toMatchObject({ error: { code: 'invalid_request' } });
    expect(JSON.stringify(bad)).not.toContain(API_KEY);

    expect(vendor.calls.filter((call) => call.path === '/v1/chat/completions')).toEqual([]);
    expect(vendor.calls.filter((call) => call.path.endsWith('/content')).map((call) => call.path)).toHaveLength(2);
    expect(vendor.calls.every((call) => call.authorization === `Bearer ${API_KEY}`)).toBe(true);
  });

  it('refuses lines of a model the channel does not serve without sending them, and one model per batch for OpenAI', async () => {
    const executor = nativeBatchFor(channel('native-openai'), '/v1/chat/completions', { upstream })!;
    const before = vendor.calls.length;
    const { upstreamId, refused } = await executor.submit(channel('native-openai'), '/v1/chat/completions', [line('x1', 'hi', 'unknown-model')], signal);
    expect(upstreamId).toBe(NO_UPSTREAM_BATCH);
    expect(refused).toEqual([{ customId: 'x1', response: { statusCode: 400, body: { error: { code: 'model_not_supported', type: 'invalid_request_error', param: 'model', message: expect.any(String) } } } }]);
    expect(vendor.calls.length).toBe(before);
    expect(await executor.poll(channel('native-openai'), upstreamId, signal)).toEqual({ state: 'ended' });
    await expect(executor.submit(channel('native-openai'), '/v1/chat/completions', [line('m1', 'a'), line('m2', 'b', 'delta-mini')], signal)).rejects.toMatchObject({ code: 'GW_REQ_INVALID_PARAM' });
  });

  it('cancel reaches the upstream batch', async () => {
    const executor = nativeBatchFor(channel('native-openai'), '/v1/chat/completions', { upstream })!;
    const { upstreamId } = await executor.submit(channel('native-openai'), '/v1/chat/completions', [line('c1', 'stop me')], signal);
    await executor.cancel(channel('native-openai'), upstreamId, signal);
    expect(vendor.calls.at(-1)).toMatchObject({ method: 'POST', path: `/v1/batches/${upstreamId}/cancel` });
    expect(await executor.poll(channel('native-openai'), upstreamId, signal)).toEqual({ state: 'ended' });
  });

  it('offers no native batch where the channel says gateway, or to an OpenAI-compatible server that does not say native', () => {
    expect(nativeBatchFor(channel('gateway-only'), '/v1/chat/completions', { upstream })).toBeUndefined();
    expect(nativeBatchFor(channel('self-hosted'), '/v1/chat/completions', { upstream })).toBeUndefined();
    expect(nativeBatchFor(channel('simulator-openai'), '/v1/chat/completions', { upstream })).toBeDefined();
  });

  it('a batch the vendor refuses whole: its results throw a redacted error naming the vendor\'s reason', async () => {
    const executor = nativeBatchFor(channel('native-openai'), '/v1/chat/completions', { upstream })!;
    const { upstreamId } = await executor.submit(channel('native-openai'), '/v1/chat/completions', [line('reject-all', 'x')], signal);
    await untilEnded(executor, channel('native-openai'), upstreamId);
    const failure = await collect(executor.results(channel('native-openai'), upstreamId, '/v1/chat/completions', signal)).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'GW_UPSTREAM_BAD_REQUEST', message: expect.stringContaining('Input refused') });
    expect(String((failure as Error).message)).not.toContain(API_KEY);
  });

  it('upstream errors of the batch API come back redacted', async () => {
    const wrong = { ...channel('native-openai'), credentials: { api_key: 'sk-wrong-key-9876543210' } };
    const executor = nativeBatchFor(wrong, '/v1/chat/completions', { upstream })!;
    const failure = await executor.submit(wrong, '/v1/chat/completions', [line('w1', 'hi')], signal).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'GW_UPSTREAM_AUTH' });
    expect(String((failure as Error).message)).not.toContain('sk-wrong');
  });
});
