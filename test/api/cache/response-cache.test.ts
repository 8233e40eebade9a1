import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, TEST_ADMIN_TOKEN, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const AUTH = { authorization: `Bearer ${TEST_KEY}` };
const ANTHROPIC = { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' };
const GEMINI = '/v1beta/models/gamma-2.5-flash-lite';

/** The exact response cache on the real gateway with the simulators as upstreams (issue 32). */
describe('response cache (issue 32)', () => {
  let gateway: TestGateway;
  let client: OpenAI;
  const upstreamCalls = () => [...gateway.deps.simulators.values()].reduce((n, s) => n + s.requests.length, 0);

  beforeAll(async () => {
    // An operator's price: simulated answers are otherwise free (issue 35), and a hit saves nothing.
    gateway = await startTestGateway({ file: { cache: { enabled: true, ttl_seconds: 600 }, prices: { 'delta-4.1': { prompt_per_1m: 2, completion_per_1m: 8 } } } });
    client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => gateway.stop());

  it('openai SDK: a repeated completion is a HIT, byte for byte, without an upstream call', async () => {
    const ask = () => client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'cache me once' }], temperature: 0 }).withResponse();
    const first = await ask();
    expect(first.response.headers.get('x-cache')).toBe('MISS');
    const before = upstreamCalls();
    const second = await ask();
    expect(second.response.headers.get('x-cache')).toBe('HIT');
    expect(Number(second.response.headers.get('age'))).toBeGreaterThanOrEqual(0);
    expect(upstreamCalls()).toBe(before);
    expect(JSON.stringify(second.data)).toBe(JSON.stringify(first.data));
    // Key order and `user`/`stream` do not change the key.
    const reordered = await call(gateway, 'POST', '/v1/chat/completions', { temperature: 0, messages: [{ content: 'cache me once', role: 'user' }], model: 'delta-4.1', user: 'u-9', stream: false });
    expect(reordered.headers.get('x-cache')).toBe('HIT');
  });

  it('openai SDK: a streamed hit replays the streamed miss; the same question without stream is served from it', async () => {
    const params = { model: 'delta-4.1', messages: [{ role: 'user' as const, content: 'stream me please' }], stream: true as const, stream_options: { include_usage: true } };
    const collect = async () => {
      const { data, response } = await client.chat.completions.create(params).withResponse();
      const chunks: unknown[] = [];
      for await (const chunk of data) chunks.push(chunk);
      return { chunks, cache: response.headers.get('x-cache') };
    };
    const miss = await collect();
    expect(miss.cache).toBe('MISS');
    const before = upstreamCalls();
    const hit = await collect();
    expect(hit.cache).toBe('HIT');
    expect(hit.chunks).toEqual(miss.chunks);
    const plain = await client.chat.completions.create({ model: 'delta-4.1', messages: params.messages }).withResponse();
    expect(plain.response.headers.get('x-cache')).toBe('HIT');
    const streamed = miss.chunks.map((c) => (c as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? '').join('');
    expect(plain.data.choices[0]!.message.content).toBe(streamed);
    expect(plain.data.usage!.total_tokens).toBeGreaterThan(0);
    expect(upstreamCalls()).toBe(before);
  });

  it('a non-stream miss serves a stream: the SDK reads the same message, usage included', async () => {
    const messages = [{ role: 'user' as const, content: 'json first, stream later' }];
    const json = await client.chat.completions.create({ model: 'delta-4.1', messages });
    const stream = await client.chat.completions.create({ model: 'delta-4.1', messages, stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(json.choices[0]!.message.content);
    expect(usage).toEqual(json.usage);
  });

  it('Cache-Control no-store, no-cache and max-age, and the TTL header', async () => {
    const body = { model: 'delta-4.1', messages: [{ role: 'user', content: 'controls' }] };
    const noStore = await call(gateway, 'POST', '/v1/chat/completions', body, { ...AUTH, 'cache-control': 'no-store' });
    expect(noStore.headers.get('x-cache')).toBe('BYPASS');
    expect((await call(gateway, 'POST', '/v1/chat/completions', body)).headers.get('x-cache')).toBe('MISS');
    expect((await call(gateway, 'POST', '/v1/chat/completions', body)).headers.get('x-cache')).toBe('HIT');
    const refresh = await call(gateway, 'POST', '/v1/chat/completions', body, { ...AUTH, 'cache-control': 'no-cache' });
    expect(refresh.headers.get('x-cache')).toBe('BYPASS');
    // Entries are whole seconds old; max-age=0 accepts only one made this second.
    await new Promise((r) => setTimeout(r, 1100));
    expect((await call(gateway, 'POST', '/v1/chat/completions', body, { ...AUTH, 'cache-control': 'max-age=0' })).headers.get('x-cache')).toBe('MISS');
    expect((await call(gateway, 'POST', '/v1/chat/completions', body, { ...AUTH, 'cache-control': 'max-age=600' })).headers.get('x-cache')).toBe('HIT');
    const ttl = { model: 'delta-4.1', messages: [{ role: 'user', content: 'short lived' }] };
    await call(gateway, 'POST', '/v1/chat/completions', ttl, { ...AUTH, 'x-gateway-cache-ttl': '1' });
    expect((await call(gateway, 'POST', '/v1/chat/completions', ttl)).headers.get('x-cache')).toBe('HIT');
    await new Promise((r) => setTimeout(r, 1100));
    expect((await call(gateway, 'POST', '/v1/chat/completions', ttl)).headers.get('x-cache')).toBe('MISS');
    const bad = await call(gateway, 'POST', '/v1/chat/completions', ttl, { ...AUTH, 'x-gateway-cache-ttl': 'soon' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toContain('x-gateway-cache-ttl');
  });

  it('two keys never share entries; a namespace is a scope of its own', async () => {
    const made = await call(gateway, 'POST', '/admin/api/keys', { name: 'other tenant' }, ADMIN);
    expect(made.status).toBe(201);
    const body = { model: 'delta-4.1', messages: [{ role: 'user', content: 'tenant secret' }] };
    expect((await call(gateway, 'POST', '/v1/chat/completions', body)).headers.get('x-cache')).toBe('MISS');
    expect((await call(gateway, 'POST', '/v1/chat/completions', body)).headers.get('x-cache')).toBe('HIT');
    const other = await call(gateway, 'POST', '/v1/chat/completions', body, { authorization: `Bearer ${made.json.key}` });
    expect(other.headers.get('x-cache')).toBe('MISS');
    const named = await call(gateway, 'POST', '/v1/chat/completions', body, { ...AUTH, 'x-gateway-cache-namespace': 'eval-1' });
    expect(named.headers.get('x-cache')).toBe('MISS');
  });

  it('the ledger marks a hit: tokens kept, cost 0, the cost saved recorded', async () => {
    const body = { model: 'delta-4.1', messages: [{ role: 'user', content: 'what does it cost' }] };
    await call(gateway, 'POST', '/v1/chat/completions', body);
    const hit = await call(gateway, 'POST', '/v1/chat/completions', body);
    expect(hit.headers.get('x-cache')).toBe('HIT');
    await new Promise((r) => setTimeout(r, 200));
    await gateway.deps.usage.flush();
    const rows = await gateway.deps.db.selectFrom('usage_events').selectAll().where('request_id', 'in', [hit.headers.get('x-request-id')!]).execute();
    expect(rows).toHaveLength(1);
    expect(Number(rows[0]!.cache_hit)).toBe(1);
    expect(Number(rows[0]!.cost_usd)).toBe(0);
    expect(Number(rows[0]!.saved_cost_usd)).toBeGreaterThan(0);
    expect(Number(rows[0]!.prompt_tokens)).toBeGreaterThan(0);
    // The rollups count the hit and what it saved (migration 0027), as the usage report reads them.
    const rollups = await gateway.deps.db.selectFrom('usage_rollups').select(['cache_hits', 'saved_cost_usd']).where('period', '=', 'day').where('grain', '=', 'key').where('key_id', '=', rows[0]!.key_id!).execute();
    expect(rollups.reduce((n, r) => n + Number(r.cache_hits), 0)).toBeGreaterThanOrEqual(1);
    expect(rollups.reduce((n, r) => n + Number(r.saved_cost_usd), 0)).toBeGreaterThan(0);
  });

  it('Anthropic-native messages: JSON and stream hits', async () => {
    const body = { model: 'alpha-sonnet-4-5-20250929', max_tokens: 64, messages: [{ role: 'user', content: 'anthropic cached' }] };
    const first = await call(gateway, 'POST', '/v1/messages', body, ANTHROPIC);
    expect(first.headers.get('x-cache')).toBe('MISS');
    const again = await call(gateway, 'POST', '/v1/messages', body, ANTHROPIC);
    expect(again.headers.get('x-cache')).toBe('HIT');
    expect(again.text).toBe(first.text);
    const streamed = await call(gateway, 'POST', '/v1/messages', { ...body, stream: true }, ANTHROPIC);
    expect(streamed.headers.get('x-cache')).toBe('HIT');
    const text = streamed.text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6))).filter((e) => e.delta?.type === 'text_delta').map((e) => e.delta.text).join('');
    expect(text).toBe(first.json.content.find((b: { type: string }) => b.type === 'text').text);
    expect(streamed.text).toContain('event: message_stop');
  });

  it("Anthropic-native with a beta header: the header is in the key, and stream and metadata still are not", async () => {
    const beta = { ...ANTHROPIC, 'anthropic-beta': 'interleaved-thinking-2025-05-14' };
    const body = { model: 'alpha-sonnet-4-5-20250929', max_tokens: 64, messages: [{ role: 'user', content: 'beta cached' }], metadata: { user_id: 'session-1' } };
    expect((await call(gateway, 'POST', '/v1/messages', body, beta)).headers.get('x-cache')).toBe('MISS');
    // Another session (metadata) streaming the same question: a hit.
    const streamed = await call(gateway, 'POST', '/v1/messages', { ...body, stream: true, metadata: { user_id: 'session-2' } }, beta);
    expect(streamed.headers.get('x-cache')).toBe('HIT');
    // Without the beta header the request may be answered differently: an entry of its own.
    expect((await call(gateway, 'POST', '/v1/messages', body, ANTHROPIC)).headers.get('x-cache')).toBe('MISS');
  });

  it('Gemini-native generateContent: a streamed miss serves JSON, and JSON serves the stream', async () => {
    const body = { contents: [{ role: 'user', parts: [{ text: 'gemini cached' }] }] };
    const stream = await call(gateway, 'POST', `${GEMINI}:streamGenerateContent?alt=sse`, body, AUTH);
    expect(stream.headers.get('x-cache')).toBe('MISS');
    const again = await call(gateway, 'POST', `${GEMINI}:streamGenerateContent?alt=sse`, body, AUTH);
    expect(again.text).toBe(stream.text);
    const json = await call(gateway, 'POST', `${GEMINI}:generateContent`, body, AUTH);
    expect(json.headers.get('x-cache')).toBe('HIT');
    const streamedText = stream.text.split('\n').filter((l) => l.startsWith('data: ')).flatMap((l) => JSON.parse(l.slice(6)).candidates?.[0]?.content?.parts ?? []).map((p: { text?: string }) => p.text ?? '').join('');
    expect(json.json.candidates[0].content.parts.map((p: { text?: string }) => p.text ?? '').join('')).toBe(streamedText);
  });

  it('purge: a key holder purges its own entries, an operator any', async () => {
    const body = { model: 'delta-4.1', messages: [{ role: 'user', content: 'purge me' }] };
    await call(gateway, 'POST', '/v1/chat/completions', body);
    expect((await call(gateway, 'POST', '/v1/chat/completions', body)).headers.get('x-cache')).toBe('HIT');
    const purged = await call(gateway, 'DELETE', '/v1/gateway/cache', undefined, AUTH);
    expect(purged.status).toBe(200);
    expect(purged.json.deleted).toBeGreaterThan(0);
    expect((await call(gateway, 'POST', '/v1/chat/completions', body)).headers.get('x-cache')).toBe('MISS');
    const all = await call(gateway, 'DELETE', '/admin/api/cache', undefined, ADMIN);
    expect(all.status).toBe(200);
    expect((await call(gateway, 'POST', '/v1/chat/completions', body)).headers.get('x-cache')).toBe('MISS');
  });
});
