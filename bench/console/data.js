// The data an operator of a busy gateway has after a month: users, keys and one million logged
// requests over 30 days, generated from a seeded PRNG so every run (and both stores) get the same.
// Key traffic follows Zipf (the busiest key has ~17%), ten keys are quiet (a few dozen requests),
// each key uses a handful of models, each model has a home channel (2% fall back to another),
// 4.5% of requests fail (429, 5xx, 400, a cut stream, a client that left).

export const DAY_MS = 86_400_000;

/** mulberry32: small, fast, seeded. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MODELS = [
  ['delta-4.1', 2, 8, 'chat-completions'],
  ['epsilon-4.7', 0.6, 2.2, 'chat-completions'],
  ['alpha-sonnet-4-5-20250929', 3, 15, 'messages'],
  ['alpha-opus-4-20250514', 15, 75, 'messages'],
  ['beta-seed-2.0-pro', 0.8, 8, 'chat-completions'],
  ['beta-seed-2.0-code', 0.6, 4, 'chat-completions'],
  ['beta-seed-2.0-lite', 0.2, 1.6, 'responses'],
  ['beta-seed-2.0-mini', 0.1, 0.8, 'chat-completions'],
  ['beta-seed-1-8-251228', 0.8, 8, 'chat-completions'],
  ['beta-seed-1-6-flash-250828', 0.05, 0.4, 'chat-completions'],
  ['beta-seed-1-6-251015', 0.8, 8, 'responses'],
  ['beta-seed-1-6-lite-251015', 0.2, 1.6, 'chat-completions'],
  ['beta-seed-1-6-vision-250815', 0.8, 8, 'chat-completions'],
  ['gamma-2.5-flash-lite', 0.1, 0.4, 'generate-content'],
  ['gamma-3.1-flash-image', 0.3, 2.5, 'images'],
  ['kling-v2-6', 0, 0, 'videoalt'],
  ['zeta-1.0-r2v', 0, 0, 'video-generations'],
  ['text-embedding-x', 0.02, 0, 'chat-completions'],
  ['rare-model-preview', 5, 20, 'chat-completions'],
  ['legacy-model-0613', 1, 2, 'chat-completions'],
].map(([id, prompt, completion, family]) => ({ id, prompt, completion, family }));

export const CHANNELS = ['openai-main', 'anthropic-main', 'ark-main', 'gemini-main', 'zhipu-main'];

const ERRORS = [
  // cumulative share, status, outcome, error code, message
  [0.015, 429, 'error', 'rate_limit_exceeded', 'Rate limit reached for requests'],
  [0.025, 500, 'error', 'upstream_error', 'The upstream answered 500'],
  [0.03, 502, 'error', 'upstream_error', 'The upstream answered 502'],
  [0.035, 503, 'error', 'upstream_unavailable', 'No channel could serve the request'],
  [0.04, 400, 'error', 'invalid_request_error', "'messages' must not be empty"],
  [0.043, 200, 'stream_error', 'upstream_stream_error', 'The upstream stream ended with an error'],
  [0.045, 200, 'client_disconnect', 'client_disconnect', null],
];

const SDKS = [
  {
    'user-agent': 'OpenAI/JS 5.23.2', 'x-stainless-lang': 'js', 'x-stainless-package-version': '5.23.2', 'x-stainless-os': 'Linux',
    'x-stainless-arch': 'x64', 'x-stainless-runtime': 'node', 'x-stainless-runtime-version': 'v22.20.0', 'x-stainless-retry-count': '0', 'x-stainless-timeout': '600000',
  },
  {
    'user-agent': 'OpenAI/Python 1.109.1', 'x-stainless-lang': 'python', 'x-stainless-package-version': '1.109.1', 'x-stainless-os': 'Linux',
    'x-stainless-arch': 'x64', 'x-stainless-runtime': 'CPython', 'x-stainless-runtime-version': '3.12.11', 'x-stainless-async': 'false', 'x-stainless-retry-count': '0', 'x-stainless-read-timeout': '600',
  },
  {
    'user-agent': 'Anthropic/JS 0.65.0', 'x-stainless-lang': 'js', 'x-stainless-package-version': '0.65.0', 'x-stainless-os': 'MacOS',
    'x-stainless-arch': 'arm64', 'x-stainless-runtime': 'node', 'x-stainless-runtime-version': 'v24.8.0', 'x-stainless-retry-count': '0', 'x-stainless-timeout': '600000', 'anthropic-version': '2023-06-01',
  },
  { 'user-agent': 'curl/8.14.1' },
];

/** Users, keys (with their traffic weights and models) and the per-event generator. */
export function makeWorld({ rows, days, now, seed = 22 }) {
  const random = prng(seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const users = Array.from({ length: 40 }, (_, i) => ({ id: `usr_bench${String(i).padStart(2, '0')}`, email: `person${i}@bench.example`, name: `Person ${i}` }));
  // 190 keys on Zipf weights, 10 quiet keys with 25 requests each; keys spread over users unevenly.
  const keys = [];
  for (let i = 0; i < 200; i++) {
    const quiet = i >= 190;
    const owner = quiet ? users[39 - (i - 190)] : users[Math.min(29, Math.floor(Math.pow(random(), 1.6) * 30))];
    const modelCount = 1 + Math.floor(random() * 5);
    const models = Array.from({ length: modelCount }, () => MODELS[Math.min(19, Math.floor(Math.pow(random(), 1.8) * 20))]);
    keys.push({ index: i, id: `key_bench${String(i).padStart(3, '0')}`, name: `bench key ${i}`, owner: owner.id, quiet, weight: quiet ? 0 : 1 / (i + 1), models, sdk: SDKS[i % SDKS.length], traced: i % 3 === 0 });
  }
  const quietRows = 10 * 25;
  const totalWeight = keys.reduce((sum, key) => sum + key.weight, 0);
  let cumulative = 0;
  const cumulativeWeights = keys.map((key) => (cumulative += key.weight / totalWeight));
  const pickKey = () => {
    const r = random();
    let lo = 0;
    let hi = cumulativeWeights.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulativeWeights[mid] < r) lo = mid + 1;
      else hi = mid;
    }
    return keys[lo];
  };
  const start = now - days * DAY_MS;
  const span = days * DAY_MS - 60_000;
  const quietAt = new Set(Array.from({ length: quietRows }, () => Math.floor(random() * rows)));
  let quietNext = 0;
  const hex = (n) => {
    let s = '';
    for (let i = 0; i < n; i++) s += Math.floor(random() * 16).toString(16);
    return s;
  };

  /** The i-th event (times rise with i) and its request-log details. */
  function event(i) {
    const key = quietAt.has(i) ? keys[190 + (quietNext++ % 10)] : pickKey();
    const model = pick(key.models);
    const home = MODELS.indexOf(model) % CHANNELS.length;
    const fallback = random() < 0.02;
    const channel = CHANNELS[fallback ? (home + 1) % CHANNELS.length : home];
    const r = random();
    const error = ERRORS.find(([share]) => r < share);
    const failed = error && error[2] === 'error';
    const prompt = failed ? 0 : Math.floor(Math.exp(6.5 + (random() - 0.5) * 3));
    const completion = failed ? 0 : Math.floor(Math.exp(5 + (random() - 0.5) * 3));
    const streamed = random() < 0.6;
    const latency = Math.floor(150 + completion * 15 + random() * 800);
    const createdAt = Math.floor(start + ((i + random()) * span) / rows);
    const requestId = `req_${hex(24)}`;
    const headers = {
      host: 'gateway.internal:8080', connection: 'keep-alive', accept: 'application/json', 'content-type': 'application/json',
      authorization: 'Bearer [masked]', ...key.sdk, 'content-length': String(200 + Math.floor(random() * 4000)), 'accept-encoding': 'gzip, deflate',
      ...(key.traced ? { traceparent: `00-${hex(32)}-${hex(16)}-01` } : {}),
    };
    return {
      event: {
        request_id: requestId, key_id: key.id, model: model.id, channel, family: model.family,
        status: error ? error[1] : 200, outcome: error ? error[2] : 'success',
        prompt_tokens: prompt, completion_tokens: completion, reasoning_tokens: model.id.startsWith('beta') ? Math.floor(completion * 0.3) : 0,
        images: model.family === 'images' && !failed ? 1 : 0, video_seconds: 0,
        cost_usd: Math.round(((prompt * model.prompt + completion * model.completion) / 1e6) * 1e9) / 1e9,
        latency_ms: latency, ttft_ms: streamed && !failed ? Math.floor(120 + random() * 600) : null, created_at: createdAt,
      },
      detail: {
        request_id: requestId, created_at: createdAt, retries: random() < 0.05 ? 1 : 0, fallbacks: fallback ? 1 : 0,
        error_code: error ? error[3] : null, error_message: error ? error[4] : null, headers,
      },
    };
  }

  const busiest = keys[0];
  const quietKey = keys[195];
  const quietUser = users.find((u) => u.id === quietKey.owner);
  const busyUser = users.find((u) => u.id === busiest.owner);
  return { users, keys, event, busiest, quietKey, quietUser, busyUser, models: MODELS, start };
}
