import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeBatchFor, type NativeBatchExecutor } from '../../src/batches/native-batch.js';
import type { BatchLine, BatchLineOutcome } from '../../src/contracts/batch-line.js';
import { ChannelBuilder } from '../../src/gateway/build-channels.js';
import type { Channel } from '../../src/gateway/channel.js';
import { UpstreamClient } from '../../src/gateway/upstream-client.js';

const signal = new AbortController().signal;
const CLAUDE = 'alpha-sonnet-4-5-20250929';
const GEMINI = 'gamma-2.5-flash-lite';

const chatLine = (customId: string, content: string, model: string, extra: Record<string, unknown> = {}): BatchLine => ({
  customId,
  line: 1,
  model,
  body: { model, messages: [{ role: 'user', content }], max_tokens: 50, ...extra },
});

async function collect(results: AsyncIterable<BatchLineOutcome>): Promise<Map<string, BatchLineOutcome>> {
  const out = new Map<string, BatchLineOutcome>();
  for await (const outcome of results) out.set(outcome.customId, outcome);
  return out;
}

async function untilEnded(executor: NativeBatchExecutor, channel: Channel, upstreamId: string): Promise<void> {
  await expect.poll(async () => (await executor.poll(channel, upstreamId, signal)).state, { timeout: 10_000, interval: 25 }).toBe('ended');
}

type Answered = Extract<BatchLineOutcome, { response: unknown }>;

describe('native batches against the built-in simulators (issue 46)', () => {
  let builder: ChannelBuilder;
  let channels: Channel[];
  const upstream = new UpstreamClient();
  const channel = (name: string) => channels.find((c) => c.name === name)!;

  beforeAll(async () => {
    builder = new ChannelBuilder({ batch_delay_ms: 30 });
    channels = await builder.build([
      { name: 'claude', vendor: 'anthropic', models: { [CLAUDE]: 'claude-sonnet-4-5-20250929' }, simulator: { batch_delay_ms: 30 } },
      { name: 'claude-slow', vendor: 'anthropic', models: { [CLAUDE]: 'claude-sonnet-4-5-20250929' }, simulator: { batch_delay_ms: 60_000 } },
      { name: 'azure', vendor: 'azure-openai', models: { 'delta-azure': 'gpt-4o-batch' } },
      { name: 'gemini', vendor: 'gemini', models: { [GEMINI]: 'gemini-2.5-flash-lite' } },
      { name: 'openai', vendor: 'openai', models: { 'delta-4.1': 'gpt-4.1', 'text-embedding-3-small': 'text-embedding-3-small' } },
      { name: 'gemini-slow', vendor: 'gemini', models: { [GEMINI]: 'gemini-2.5-flash-lite' }, simulator: { batch_delay_ms: 60_000 } },
    ]);
  });

  afterAll(async () => {
    await builder.close();
    await upstream.close();
  });

  it('Anthropic: one message batch; answers come back as OpenAI chat completions with usage, joined on custom_id', async () => {
    const executor = nativeBatchFor(channel('claude'), '/v1/chat/completions', { upstream })!;
    expect(executor.oneModelPerBatch).toBe(false);
    const lines = [chatLine('a1', 'What is a batch?', CLAUDE), chatLine('a.2 (any id)', 'Say hi', CLAUDE), chatLine('a3', 'Too many', CLAUDE, { n: 2 })];
    const { upstreamId, refused } = await executor.submit(channel('claude'), '/v1/chat/completions', lines, signal);
    // Anthropic answers one choice: the sync translator refuses n=2, so the line is never sent.
    expect(refused.map((outcome) => [outcome.customId, (outcome as Answered).response.statusCode])).toEqual([['a3', 400]]);
    const sim = builder.simulators.get('claude')!;
    expect(sim.requests.filter((r) => r.path === '/v1/messages/batches')).toHaveLength(1);
    expect(sim.requests.filter((r) => r.path === '/v1/messages')).toHaveLength(0);
    const created = sim.requests.find((r) => r.path === '/v1/messages/batches')!.body as { requests: { custom_id: string; params: { model: string } }[] };
    expect(created.requests.map((r) => r.params.model)).toEqual(['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5-20250929']);
    // Anthropic takes ^[a-zA-Z0-9_-]{1,64}$ only: other ids go upstream encoded.
    expect(created.requests[0]!.custom_id).toBe('a1');
    expect(created.requests[1]!.custom_id).toMatch(/^x-[a-zA-Z0-9_-]+$/);

    await untilEnded(executor, channel('claude'), upstreamId);
    const outcomes = await collect(executor.results(channel('claude'), upstreamId, '/v1/chat/completions', signal));
    expect([...outcomes.keys()].sort()).toEqual(['a.2 (any id)', 'a1']);
    for (const outcome of outcomes.values()) {
      const answered = outcome as Answered;
      expect(answered.response.statusCode).toBe(200);
      expect(answered.response.body).toMatchObject({
        object: 'chat.completion',
        model: CLAUDE,
        choices: [{ index: 0, message: { role: 'assistant', content: expect.any(String) }, finish_reason: expect.any(String) }],
        usage: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), total_tokens: expect.any(Number) },
      });
      expect(answered.usage!.inputTokens).toBeGreaterThan(0);
      expect(answered.usage!.outputTokens).toBeGreaterThan(0);
    }
  });

  it('Anthropic: cancel reaches the upstream batch and the lines end cancelled', async () => {
    const executor = nativeBatchFor(channel('claude-slow'), '/v1/chat/completions', { upstream })!;
    const { upstreamId } = await executor.submit(channel('claude-slow'), '/v1/chat/completions', [chatLine('c1', 'Stop', CLAUDE)], signal);
    expect(await executor.poll(channel('claude-slow'), upstreamId, signal)).toEqual({ state: 'running' });
    await executor.cancel(channel('claude-slow'), upstreamId, signal);
    const sim = builder.simulators.get('claude-slow')!;
    expect(sim.requests.some((r) => r.method === 'POST' && r.path === `/v1/messages/batches/${upstreamId}/cancel`)).toBe(true);
    await untilEnded(executor, channel('claude-slow'), upstreamId);
    const outcomes = await collect(executor.results(channel('claude-slow'), upstreamId, '/v1/chat/completions', signal));
    expect(outcomes.get('c1')).toEqual({ customId: 'c1', error: { code: 'batch_cancelled', message: expect.any(String) } });
  });

  it('Gemini: one batchGenerateContent with inline requests; inlined responses come back as chat completions; cancel reaches it', async () => {
    const sim = channel('gemini');
    const executor = nativeBatchFor(sim, '/v1/chat/completions', { upstream })!;
    const { upstreamId } = await executor.submit(sim, '/v1/chat/completions', [chatLine('g1', 'Hello', GEMINI), chatLine('g2', 'Again', GEMINI)], signal);
    const requests = builder.simulators.get('gemini')!.requests;
    expect(requests.filter((r) => r.path.endsWith(':batchGenerateContent'))).toHaveLength(1);
    expect(requests.filter((r) => r.path.endsWith(':generateContent'))).toHaveLength(0);
    await untilEnded(executor, sim, upstreamId);
    const outcomes = await collect(executor.results(sim, upstreamId, '/v1/chat/completions', signal, { modelOf: () => GEMINI }));
    expect([...outcomes.keys()].sort()).toEqual(['g1', 'g2']);
    const g1 = outcomes.get('g1') as Answered;
    expect(g1.response).toMatchObject({ statusCode: 200, body: { object: 'chat.completion', model: GEMINI, choices: [{ message: { role: 'assistant', content: expect.any(String) } }] } });
    expect(g1.usage!.inputTokens).toBeGreaterThan(0);

    const slow = channel('gemini-slow');
    const stopping = await executor.submit(slow, '/v1/chat/completions', [chatLine('s1', 'Stop', GEMINI)], signal);
    await executor.cancel(slow, stopping.upstreamId, signal);
    expect(builder.simulators.get('gemini-slow')!.requests.some((r) => r.method === 'POST' && r.path === `/v1beta/batches/${stopping.upstreamId}:cancel`)).toBe(true);
    expect(await executor.poll(slow, stopping.upstreamId, signal)).toEqual({ state: 'ended' });
  });

  it('Azure OpenAI: files and batches on the v1 paths, the deployment as each line\'s model', async () => {
    const azure = channel('azure');
    const executor = nativeBatchFor(azure, '/v1/chat/completions', { upstream })!;
    const { upstreamId } = await executor.submit(azure, '/v1/chat/completions', [chatLine('z1', 'Hello', 'delta-azure')], signal);
    const requests = builder.simulators.get('azure')!.requests;
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /openai/v1/files', 'POST /openai/v1/batches']);
    await untilEnded(executor, azure, upstreamId);
    const outcomes = await collect(executor.results(azure, upstreamId, '/v1/chat/completions', signal, { modelOf: () => 'delta-azure' }));
    expect((outcomes.get('z1') as Answered).response).toMatchObject({ statusCode: 200, body: { object: 'chat.completion', model: 'delta-azure' } });
  });

  it('OpenAI simulator: files and batches, chat and embeddings lines answered by its sync routes', async () => {
    const openai = channel('openai');
    const executor = nativeBatchFor(openai, '/v1/chat/completions', { upstream })!;
    const { upstreamId } = await executor.submit(openai, '/v1/chat/completions', [chatLine('o1', 'Hello', 'delta-4.1'), chatLine('o2', 'Again', 'delta-4.1')], signal);
    await untilEnded(executor, openai, upstreamId);
    const outcomes = await collect(executor.results(openai, upstreamId, '/v1/chat/completions', signal, { modelOf: () => 'delta-4.1' }));
    expect((outcomes.get('o1') as Answered).response.body).toMatchObject({ object: 'chat.completion', model: 'delta-4.1', usage: { prompt_tokens: expect.any(Number) } });
    expect((outcomes.get('o2') as Answered).usage!.outputTokens).toBeGreaterThan(0);

    const embeddings = nativeBatchFor(openai, '/v1/embeddings', { upstream })!;
    const embedLine: BatchLine = { customId: 'e1', line: 1, model: 'text-embedding-3-small', body: { model: 'text-embedding-3-small', input: ['alpha', 'beta'] } };
    const batch = await embeddings.submit(openai, '/v1/embeddings', [embedLine], signal);
    await untilEnded(embeddings, openai, batch.upstreamId);
    const vectors = await collect(embeddings.results(openai, batch.upstreamId, '/v1/embeddings', signal, { modelOf: () => 'text-embedding-3-small' }));
    const answer = (vectors.get('e1') as Answered).response.body as { data: { embedding: number[] }[]; model: string };
    expect(answer.model).toBe('text-embedding-3-small');
    expect(answer.data).toHaveLength(2);
    expect(answer.data[0]!.embedding.length).toBe(1536);
  });
});
