import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, bearer, createKey } from '../../helpers/admin.js';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

const AUTH = { authorization: `Bearer ${TEST_KEY}` };
const ANTHROPIC = { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' };
const chat = (content: string, system?: string) => ({
  model: 'delta-4.1',
  messages: [...(system ? [{ role: 'system', content: system }] : []), { role: 'user', content }],
});

/**
 * Semantic mode (issue 32): after an exact miss, the last user turn is embedded through the
 * gateway's own embeddings path and matched above the threshold among requests equal in all else.
 * The simulator's embeddings are a bag of words: the same words in another case and punctuation
 * point the same way (similarity 1); five of six words shared is about 0.83.
 */
describe('semantic response cache (issue 32)', () => {
  let gateway: TestGateway;
  const chatCalls = () => [...gateway.deps.simulators.values()].reduce((n, s) => n + s.requests.filter((r) => !r.path.includes('embed')).length, 0);

  beforeAll(async () => {
    gateway = await startTestGateway({ file: { cache: { enabled: true, mode: 'semantic', semantic: { embedding_model: 'text-embedding-3-small', threshold: 0.95 } } } });
  });
  afterAll(() => gateway.stop());

  it('serves the same question worded differently, and not a different question with similar words', async () => {
    const first = await call(gateway, 'POST', '/v1/chat/completions', chat('What is the capital of France?'));
    expect(first.headers.get('x-cache')).toBe('MISS');
    const before = chatCalls();
    const paraphrase = await call(gateway, 'POST', '/v1/chat/completions', chat('what is the capital of france'));
    expect(paraphrase.headers.get('x-cache')).toBe('HIT');
    expect(paraphrase.headers.get('x-cache-match')).toMatch(/^semantic; similarity=(1\.0000|0\.99)/);
    expect(paraphrase.text).toBe(first.text);
    expect(chatCalls()).toBe(before);

    const spain = await call(gateway, 'POST', '/v1/chat/completions', chat('What is the capital of Spain?'));
    expect(spain.headers.get('x-cache')).toBe('MISS');
    expect(spain.headers.get('x-cache-match')).toBeNull();
    expect(chatCalls()).toBe(before + 1);
  });

  it('matches only with the same system prompt, the same model and in the same scope', async () => {
    await call(gateway, 'POST', '/v1/chat/completions', chat('How tall is Mount Everest?', 'You are a geographer.'));
    expect((await call(gateway, 'POST', '/v1/chat/completions', chat('how tall is mount everest', 'You are a geographer.'))).headers.get('x-cache')).toBe('HIT');
    expect((await call(gateway, 'POST', '/v1/chat/completions', chat('how tall is mount everest', 'You are a poet.'))).headers.get('x-cache')).toBe('MISS');
    expect((await call(gateway, 'POST', '/v1/chat/completions', { ...chat('how tall is mount everest', 'You are a geographer.'), model: 'delta-4.1-mini' })).headers.get('x-cache')).not.toBe('HIT');
    const other = await createKey(gateway, { name: 'another tenant' });
    expect((await call(gateway, 'POST', '/v1/chat/completions', chat('how tall is mount everest', 'You are a geographer.'), bearer(other.key))).headers.get('x-cache')).toBe('MISS');
  });

  it('the question is embedded through the gateway with the caller\'s key: the ledger shows the embedding', async () => {
    await call(gateway, 'POST', '/v1/chat/completions', chat('Which river is the longest?'));
    await gateway.deps.usage.flush();
    const events = await gateway.deps.db.selectFrom('usage_events').select(['family', 'model', 'key_id']).where('model', '=', 'text-embedding-3-small').execute();
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.family === 'embeddings')).toBe(true);
  });

  it('fails open: a key that may not use the embedding model still gets exact hits', async () => {
    const limited = await createKey(gateway, { name: 'chat only', models: ['delta-4.1'] });
    const body = chat('Who wrote Hamlet?');
    expect((await call(gateway, 'POST', '/v1/chat/completions', body, bearer(limited.key))).headers.get('x-cache')).toBe('MISS');
    expect((await call(gateway, 'POST', '/v1/chat/completions', chat('who wrote hamlet'), bearer(limited.key))).headers.get('x-cache')).toBe('MISS');
    expect((await call(gateway, 'POST', '/v1/chat/completions', body, bearer(limited.key))).headers.get('x-cache')).toBe('HIT');
  });

  it('a streamed paraphrase on Anthropic-native messages is replayed from the semantic match', async () => {
    const body = { model: 'alpha-sonnet-4-5-20250929', max_tokens: 64, messages: [{ role: 'user', content: 'Name the largest ocean.' }] };
    expect((await call(gateway, 'POST', '/v1/messages', body, ANTHROPIC)).headers.get('x-cache')).toBe('MISS');
    const streamed = await call(gateway, 'POST', '/v1/messages', { ...body, stream: true, messages: [{ role: 'user', content: 'name the LARGEST ocean' }] }, ANTHROPIC);
    expect(streamed.headers.get('x-cache')).toBe('HIT');
    expect(streamed.text).toContain('event: message_stop');
  });

  it('a key switched to exact mode is never served a similar question', async () => {
    const exact = await createKey(gateway, { name: 'exact only', cache_mode: 'exact' });
    expect((await admin(gateway, 'GET', `/keys/${exact.id}`)).json.cache_mode).toBe('exact');
    await call(gateway, 'POST', '/v1/chat/completions', chat('What is the speed of light?'), bearer(exact.key));
    expect((await call(gateway, 'POST', '/v1/chat/completions', chat('what is the speed of light'), bearer(exact.key))).headers.get('x-cache')).toBe('MISS');
  });
});
