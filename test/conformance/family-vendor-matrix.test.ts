import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopeForPath, type EnvelopeKind } from '../../src/api/envelopes.js';
import { PROVIDERS } from '../../src/providers/registry.js';
import type { ProviderModule } from '../../src/providers/types.js';
import type { PairFamily } from '../../src/contracts/translator.js';
import { assertEnvelope } from '../helpers/envelopes.js';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';

/**
 * One suite for every (endpoint family, vendor) pair the registry offers (STYLE.md §9, hono's
 * shared router suite): each pair is reached through a configured simulator channel of that
 * vendor, so the real translators run both ways over real HTTP. New pairs join automatically.
 */
interface FamilyCase {
  /** Public models this family's requests use; the channel maps them to the vendor. */
  models: string[];
  path: string;
  /** Headers that select the family's protocol on a shared path (Anthropic-native /v1/messages). */
  headers?: Record<string, string>;
  /** The error envelope, when the path alone does not decide it. */
  envelope?: EnvelopeKind;
  streamPath?: string;
  body: (stream: boolean) => Record<string, unknown>;
  checkBody: (json: any) => void;
  checkStream?: (text: string) => void;
}

const PROMPT = 'hello conformance';
const chatCase = (model: string, path: string): FamilyCase => ({
  models: [model],
  path,
  body: (stream) => ({ model, messages: [{ role: 'user', content: PROMPT }], max_tokens: 60, stream, ...(stream ? { stream_options: { include_usage: true } } : {}) }),
  checkBody: (json) => {
    expect(json.object).toBe('chat.completion');
    expect(json.model).toBe(model);
    expect(json.choices[0].message.content).toContain(PROMPT);
    expect(json.usage.prompt_tokens).toBeGreaterThan(0);
  },
  checkStream: (text) => {
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
    expect(text).toContain('"usage":{');
  },
});

const FAMILIES: Record<PairFamily, FamilyCase> = {
  'chat-completions': chatCase('delta-4.1', '/v1/chat/completions'),
  messages: chatCase('alpha-sonnet-4-5-20250929', '/v1/messages'),
  'anthropic-messages': {
    models: ['alpha-sonnet-4-5-20250929'],
    path: '/v1/messages',
    headers: { 'anthropic-version': '2023-06-01' },
    envelope: 'anthropic',
    body: (stream) => ({ model: 'alpha-sonnet-4-5-20250929', system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }], messages: [{ role: 'user', content: [{ type: 'text', text: PROMPT }] }], max_tokens: 60, stream }),
    checkBody: (json) => {
      expect(json.type).toBe('message');
      expect(json.model).toBe('alpha-sonnet-4-5-20250929');
      expect(json.content[0].type).toBe('text');
      expect(json.content[0].text).toContain(PROMPT);
      expect(json.stop_reason).toBe('end_turn');
      expect(json.usage.input_tokens).toBeGreaterThan(0);
    },
    checkStream: (text) => {
      expect(text).toMatch(/^event: message_start\n/);
      expect(text).toContain('event: content_block_delta');
      expect(text).toMatch(/"output_tokens":[1-9]/);
      expect(text.trim().split('\n\n').at(-1)).toBe('event: message_stop\ndata: {"type":"message_stop"}');
    },
  },
  responses: {
    models: ['beta-seed-2.0-mini'],
    path: '/v1/responses',
    body: (stream) => ({ model: 'beta-seed-2.0-mini', input: PROMPT, max_output_tokens: 200, stream }),
    checkBody: (json) => {
      expect(json.object).toBe('response');
      expect(json.status).toBe('completed');
      expect(JSON.stringify(json.output)).toContain(PROMPT);
      expect(json.usage.input_tokens).toBeGreaterThan(0);
    },
    checkStream: (text) => {
      expect(text).toContain('event: response.created');
      expect(text.trim().split('\n\n').at(-1)).toMatch(/^event: response\.completed/);
    },
  },
  'generate-content': {
    models: ['gamma-2.5-flash-lite', 'gamma-3.1-flash-image'],
    path: `/v1beta/models/gamma-2.5-flash-lite:generateContent?key=${TEST_KEY}`,
    streamPath: `/v1beta/models/gamma-2.5-flash-lite:streamGenerateContent?alt=sse&key=${TEST_KEY}`,
    body: () => ({ contents: [{ role: 'user', parts: [{ text: PROMPT }] }] }),
    checkBody: (json) => {
      expect(json.candidates[0].content.role).toBe('model');
      expect(JSON.stringify(json.candidates[0].content.parts)).toContain(PROMPT);
      expect(json.usageMetadata.promptTokenCount).toBeGreaterThan(0);
      expect(json.modelVersion).toBe('gamma-2.5-flash-lite');
    },
    checkStream: (text) => {
      const chunks = text.trim().split('\n\n').map((event) => JSON.parse(event.slice('data: '.length)));
      expect(chunks.map((chunk) => chunk.candidates?.[0]?.content?.parts?.map((part: { text?: string }) => part.text ?? '').join('') ?? '').join('')).toContain(PROMPT);
      expect(chunks.at(-1).usageMetadata.totalTokenCount).toBeGreaterThan(0);
    },
  },
  images: {
    models: ['gamma-3.1-flash-image'],
    path: '/v1/images/generations',
    body: () => ({ model: 'gamma-3.1-flash-image', prompt: PROMPT, size: '256x256', response_format: 'b64_json' }),
    checkBody: (json) => {
      expect(Buffer.from(json.data[0].b64_json, 'base64').subarray(1, 4).toString()).toBe('PNG');
    },
  },
  embeddings: {
    models: ['text-embedding-3-small'],
    path: '/v1/embeddings',
    body: () => ({ model: 'text-embedding-3-small', input: [PROMPT, 'second text'], encoding_format: 'base64' }),
    checkBody: (json) => {
      expect(json.data.map((item: { index: number }) => item.index)).toEqual([0, 1]);
      // Each vendor's default length (OpenAI 1,536, Gemini 3,072, Voyage 1,024), as float32 bytes.
      expect(Buffer.from(json.data[0].embedding, 'base64').length % 4).toBe(0);
      expect(Buffer.from(json.data[0].embedding, 'base64').length).toBeGreaterThanOrEqual(1024 * 4);
      expect(json.usage.prompt_tokens).toBeGreaterThan(0);
    },
  },
  rerank: {
    models: ['rerank-v3.5'],
    path: '/v1/rerank',
    body: () => ({ model: 'rerank-v3.5', query: PROMPT, documents: ['unrelated words', 'hello conformance suite'] }),
    checkBody: (json) => {
      expect(json.results[0].index).toBe(1);
      expect(json.results[0].relevance_score).toBeGreaterThan(json.results[1].relevance_score);
    },
  },
};

const CLOUD_UPSTREAM_MODELS: Record<string, string> = { 'azure-openai': 'gpt-4.1', vertex: 'gemini-2.5-flash', bedrock: 'amazon.nova-pro-v1:0' };
/** Where a cloud serves a family with models of another kind: its embedding and image models. */
const CLOUD_FAMILY_MODELS: Partial<Record<PairFamily, Record<string, string>>> = {
  embeddings: { 'azure-openai': 'text-embedding-3-small', vertex: 'gemini-embedding-001', bedrock: 'amazon.titan-embed-text-v2:0' },
  images: { 'azure-openai': 'gpt-image-1', vertex: 'gemini-2.5-flash-image' },
};

const UPSTREAM_FAULTS: Array<[upstream: number, client: number]> = [
  [400, 400],
  [401, 502],
  [429, 429],
  [500, 502],
  [503, 503],
];

const pairs = PROVIDERS.flatMap((provider) =>
  (Object.keys(provider.pairs) as PairFamily[]).map((family) => ({ provider, family, label: `${family} → ${provider.vendor}` })),
);

describe.each(pairs)('conformance: $label', ({ provider, family }: { provider: ProviderModule; family: PairFamily }) => {
  const spec = FAMILIES[family];
  const channel = `conformance-${provider.vendor}`;
  // Cloud vendors list no public models of their own: a model their simulator serves stands in.
  const upstreamModel = Object.values(provider.defaultModels)[0] ?? CLOUD_FAMILY_MODELS[family]?.[provider.vendor] ?? CLOUD_UPSTREAM_MODELS[provider.vendor]!;
  let gateway: TestGateway;
  const send = (stream: boolean) =>
    fetch(gateway.url + (stream ? (spec.streamPath ?? spec.path) : spec.path), {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json', ...spec.headers },
      body: JSON.stringify(spec.body(stream)),
    });

  beforeAll(async () => {
    const models = Object.fromEntries(spec.models.map((m) => [m, provider.defaultModels[m] ?? upstreamModel]));
    gateway = await startTestGateway({ file: { channels: [{ name: channel, vendor: provider.vendor, models, api_key: 'simulator-key', max_retries: 0 }] } });
  });
  afterAll(() => gateway.stop());

  it('answers a basic request and records its usage', async () => {
    const response = await send(false);
    const json = await response.json();
    expect(response.status, JSON.stringify(json)).toBe(200);
    spec.checkBody(json);
    const upstream = gateway.deps.simulators.get(channel)!.requests.at(-1)!;
    expect(upstream.headers.authorization ?? upstream.headers['x-api-key'] ?? upstream.headers['x-goog-api-key'] ?? upstream.headers['api-key']).toBeTruthy();
    await gateway.deps.usage.flush();
    const event = await gateway.deps.db.selectFrom('usage_events').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(event).toMatchObject({ channel, status: 200, outcome: 'success' });
    expect(event.prompt_tokens).toBeGreaterThan(0);
  });

  it.skipIf(!spec.checkStream)('streams to its family terminal event', async () => {
    const response = await send(true);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    spec.checkStream!(await response.text());
  });

  it.each(UPSTREAM_FAULTS)('an upstream %i reaches the client as %i in the family envelope', async (upstream, expected) => {
    const simulator = gateway.deps.simulators.get(channel)!;
    simulator.setOptions({ fault_status: upstream, fault_retry_after_s: upstream === 429 ? 3 : undefined });
    try {
      const path = spec.path;
      const response = await call(gateway, 'POST', path, spec.body(false), { authorization: `Bearer ${TEST_KEY}`, ...spec.headers });
      expect(response.status).toBe(expected);
      assertEnvelope(spec.envelope ?? envelopeForPath(path), response.json);
      expect(response.text).not.toContain('simulator-key');
      if (upstream === 429) expect(response.headers.get('retry-after')).toBe('3');
    } finally {
      simulator.setOptions({});
    }
  });
});
