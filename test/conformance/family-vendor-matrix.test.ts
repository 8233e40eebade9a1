import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopeForPath, type EnvelopeKind } from '../../src/api/envelopes.js';
import { PROVIDERS, type VendorId } from '../../src/providers/registry.js';
import type { ProviderModule } from '../../src/providers/types.js';
import type { PairFamily } from '../../src/contracts/translator.js';
import { assertEnvelope } from '../helpers/envelopes.js';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';
import { FIXTURES, loadCases } from '../helpers/golden.js';

/**
 * One suite for every (endpoint family, vendor) cell of the registry (STYLE.md §9, hono's shared
 * router suite): each pair a module declares is reached through a configured simulator channel of
 * that vendor, so the real translators run both ways over real HTTP; each cell without a pair is
 * a skip that says why (issue 43). New vendors and pairs join automatically, and a cell that is
 * neither served nor explained fails.
 */
/** Why a cell is skipped, naming its vendor (or family) first: printed in the test's name. */
type SkipReason<Subject extends string> = `${Subject}: ${string}`;

/** What a family's models make: picks the golden case whose upstream model stands in for a cloud vendor. */
type FamilyKind = 'chat' | 'image' | 'embedding' | 'rerank';

interface FamilyCase {
  kind: FamilyKind;
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
  /** Absent for families that do not stream, which say why in `noStream`. */
  checkStream?: (text: string) => void;
  noStream?: SkipReason<PairFamily>;
}

const PROMPT = 'hello conformance';
const chatCase = (model: string, path: string): FamilyCase => ({
  kind: 'chat',
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
    kind: 'chat',
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
    kind: 'chat',
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
    kind: 'chat',
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
    kind: 'image',
    noStream: 'images: the family answers whole images, never a stream',
    models: ['gamma-3.1-flash-image'],
    path: '/v1/images/generations',
    body: () => ({ model: 'gamma-3.1-flash-image', prompt: PROMPT, size: '256x256', response_format: 'b64_json' }),
    checkBody: (json) => {
      expect(Buffer.from(json.data[0].b64_json, 'base64').subarray(1, 4).toString()).toBe('PNG');
    },
  },
  embeddings: {
    kind: 'embedding',
    noStream: 'embeddings: the family does not stream',
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
    kind: 'rerank',
    noStream: 'rerank: the family does not stream',
    models: ['rerank-v3.5'],
    path: '/v1/rerank',
    body: () => ({ model: 'rerank-v3.5', query: PROMPT, documents: ['unrelated words', 'hello conformance suite'] }),
    checkBody: (json) => {
      expect(json.results[0].index).toBe(1);
      expect(json.results[0].relevance_score).toBeGreaterThan(json.results[1].relevance_score);
    },
  },
};

/**
 * Cells the registry leaves empty, each with its reason; a reason for a cell that has a pair, or
 * an empty cell without one, fails below, so this table and the modules cannot drift apart.
 */
const NO_PAIR: { readonly [V in VendorId]?: Partial<Record<PairFamily, SkipReason<V>>> } = {
  openai: { images: 'openai: no images pair; its default models include no image model' },
  'volcengine-ark': { images: 'volcengine-ark: no image generation pair', rerank: 'volcengine-ark: no rerank endpoint' },
  zhipu: { images: 'zhipu: no image generation pair', rerank: 'zhipu: no rerank endpoint' },
  gemini: { rerank: 'gemini: no rerank endpoint' },
  anthropic: { images: 'anthropic: Claude makes no images', embeddings: 'anthropic: no embeddings endpoint', rerank: 'anthropic: no rerank endpoint' },
  'alibaba-dashscope': allBut('alibaba-dashscope', ['embeddings'], 'video tasks and embeddings only'),
  kling: allBut('kling', [], 'video tasks only, no translator pairs'),
  bedrock: { images: 'bedrock: no image generation pair', rerank: 'bedrock: no rerank pair' },
  'azure-openai': { rerank: 'azure-openai: no rerank endpoint' },
  vertex: { rerank: 'vertex: no rerank endpoint' },
  cohere: allBut('cohere', ['embeddings', 'rerank'], 'embeddings and rerank only'),
  voyage: allBut('voyage', ['embeddings', 'rerank'], 'embeddings and rerank only'),
};

function allBut<V extends VendorId>(vendor: V, served: PairFamily[], why: string): Partial<Record<PairFamily, SkipReason<V>>> {
  const families = (Object.keys(FAMILIES) as PairFamily[]).filter((family) => !served.includes(family));
  return Object.fromEntries(families.map((family) => [family, `${vendor}: ${why}`]));
}

/**
 * The channel's model map for a family: each public model the family's requests use, to the
 * vendor's own model of that name where it has one; else to the upstream model of the vendor's
 * golden cases (test/fixtures/<vendor>/) for this family, or for another family of the same kind
 * (the chat hub's families run on the chat model), which is how clouds (serving the customer's
 * deployments, listing no models) take part; else to the vendor's first default model.
 */
function channelModelsFor(provider: ProviderModule, family: PairFamily): Record<string, string> | undefined {
  const stand = goldenModelFor(provider.vendor, family) ?? Object.values(provider.defaultModels)[0];
  const entries = FAMILIES[family].models.map((model) => [model, provider.defaultModels[model] ?? stand] as const);
  return entries.every(([, upstream]) => upstream !== undefined) ? Object.fromEntries(entries as Array<readonly [string, string]>) : undefined;
}

function goldenModelFor(vendor: string, family: PairFamily): string | undefined {
  if (!existsSync(join(FIXTURES, vendor))) return undefined;
  const answered = loadCases(vendor).filter((golden) => golden.has('client-response.json') || golden.has('client-stream.sse'));
  const kindOf = (caseFamily: string | undefined) => (caseFamily !== undefined && Object.hasOwn(FAMILIES, caseFamily) ? FAMILIES[caseFamily as PairFamily].kind : undefined);
  const chosen = answered.find((golden) => golden.meta.family === family) ?? answered.find((golden) => kindOf(golden.meta.family) === FAMILIES[family].kind);
  return chosen?.meta.context?.upstreamModel;
}

const UPSTREAM_FAULTS: Array<[upstream: number, client: number]> = [
  [400, 400],
  [401, 502],
  [429, 429],
  [500, 502],
  [503, 503],
];

interface Cell {
  provider: ProviderModule<VendorId>;
  family: PairFamily;
  label: string;
  /** Undefined where the module declares the pair. */
  skip: SkipReason<string> | undefined;
  /** Public model → upstream model, for the cell's channel; undefined where none could be found. */
  models: Record<string, string> | undefined;
  /** The upstream model the family's first public model reaches (shown in the row's name). */
  upstreamModel: string | undefined;
}

const CELLS: Cell[] = PROVIDERS.flatMap((provider) =>
  (Object.keys(FAMILIES) as PairFamily[]).map((family) => {
    const hasPair = provider.pairs[family] !== undefined;
    const models = hasPair ? channelModelsFor(provider, family) : undefined;
    return {
      provider,
      family,
      label: `${family} → ${provider.vendor}`,
      skip: hasPair ? undefined : NO_PAIR[provider.vendor]?.[family],
      models,
      upstreamModel: models ? Object.values(models)[0] : undefined,
    };
  }),
);
const served = CELLS.filter((cell) => cell.provider.pairs[cell.family] !== undefined);

describe('conformance matrix from the registry (issue 43)', () => {
  it('every cell without a pair says why, and no reason is left on a cell that has one', () => {
    const unexplained = CELLS.filter((cell) => cell.provider.pairs[cell.family] === undefined && !cell.skip).map((cell) => cell.label);
    const stale = served.filter((cell) => NO_PAIR[cell.provider.vendor]?.[cell.family] !== undefined).map((cell) => cell.label);
    expect({ unexplained, stale }).toEqual({ unexplained: [], stale: [] });
  });

  it('every pair has an upstream model to run with: the vendor default, or its golden cases', () => {
    expect(served.filter((cell) => cell.upstreamModel === undefined).map((cell) => cell.label)).toEqual([]);
  });

  for (const cell of CELLS) if (cell.skip) it.skip(`${cell.label}: ${cell.skip}`, () => {});
});

describe.each(served.filter((cell) => cell.models !== undefined))('conformance: $label ($upstreamModel)', ({ provider, family, models }: Cell) => {
  const spec = FAMILIES[family];
  const channel = `conformance-${provider.vendor}`;
  let gateway: TestGateway;
  const send = (stream: boolean) =>
    fetch(gateway.url + (stream ? (spec.streamPath ?? spec.path) : spec.path), {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json', ...spec.headers },
      body: JSON.stringify(spec.body(stream)),
    });

  beforeAll(async () => {
    gateway = await startTestGateway({ file: { channels: [{ name: channel, vendor: provider.vendor, models: models!, api_key: 'simulator-key', max_retries: 0 }] } });
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

  if (spec.checkStream) {
    it('streams to its family terminal event', async () => {
      const response = await send(true);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      spec.checkStream!(await response.text());
    });
  } else {
    it.skip(`no stream: ${spec.noStream}`, () => {});
  }

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
