// The benchmark scenarios: each names the same request three ways — straight to the upstream
// simulator (the ceiling), through our gateway, and through Portkey pointed at the same upstream.

const SHORT_PROMPT = 'Say hello in one short sentence.';
const LONG_PROMPT =
  'Write a short paragraph about gateways, routing, streaming, latency, throughput and the careful measurement of all of them under load.';

/**
 * The simulator streams one chunk per token: a role chunk, `max_tokens` content chunks, a
 * finish chunk, the usage chunk (include_usage) and [DONE]. So max_tokens 46 gives 50 events,
 * max_tokens 16 gives 20.
 */
const streamBody = (model, contentChunks, prompt = LONG_PROMPT) =>
  JSON.stringify({
    model,
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: contentChunks,
    messages: [{ role: 'user', content: prompt }],
  });

const chatBody = (model, extra = {}) => JSON.stringify({ model, messages: [{ role: 'user', content: SHORT_PROMPT }], ...extra });

/**
 * About 100 KB of tool definitions, an agent's catalogue: the gateway parses, validates and
 * re-serialises all of it, while the simulator does not tokenise tools, so the upstream stays
 * cheap and the body's cost shows up in the gateway (a 100 KB prompt would be tokenised by the
 * simulator and make the upstream the bottleneck).
 */
function toolCatalogue(targetBytes) {
  const tools = [];
  const description = 'Looks up one record of the inventory by its identifier and returns the fields asked for. ';
  for (let i = 0; JSON.stringify(tools).length < targetBytes; i++) {
    tools.push({
      type: 'function',
      function: {
        name: `lookup_record_${i}`,
        description: description.repeat(4),
        parameters: {
          type: 'object',
          properties: {
            id: { type: 'string', description: 'The record identifier, as printed on the label.' },
            fields: { type: 'array', items: { type: 'string' }, description: 'Which fields to return.' },
            limit: { type: 'integer', minimum: 1, maximum: 100 },
          },
          required: ['id'],
        },
      },
    });
  }
  return tools;
}

const TOOLS = toolCatalogue(100 * 1024);

/**
 * @param {{upstream: {openai: string, gemini: string, slow?: string}, gateway: string,
 *          portkey?: string, keys: {bootstrap: string, limited: string}}} ctx
 */
export function buildScenarios(ctx) {
  const json = { 'content-type': 'application/json' };
  const openaiDirect = (body, base = ctx.upstream.openai) => ({
    url: `${base}/v1/chat/completions`,
    headers: { ...json, authorization: 'Bearer simulator-key' },
    body,
  });
  const ours = (body, key = ctx.keys.bootstrap) => ({
    url: `${ctx.gateway}/v1/chat/completions`,
    headers: { ...json, authorization: `Bearer ${key}` },
    body,
  });
  const portkey = (body, base = ctx.upstream.openai) =>
    ctx.portkey
      ? {
          url: `${ctx.portkey}/v1/chat/completions`,
          headers: { ...json, authorization: 'Bearer simulator-key', 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${base}/v1` },
          body,
        }
      : null;
  const chat = (upstreamModel, ourModel, extra) => ({ direct: chatBody(upstreamModel, extra), ours: chatBody(ourModel, extra) });
  const stream = (chunks) => ({ direct: streamBody('gpt-4.1', chunks), ours: streamBody('delta-4.1', chunks) });

  const small = chat('gpt-4.1', 'delta-4.1');
  const big = chat('gpt-4.1', 'delta-4.1', { tools: TOOLS });
  const s50 = stream(46);
  const s20 = stream(16);
  // 2,048 short texts, OpenAI's most per request: what an indexing job sends (issue 29). 256
  // dimensions keep the answer at 2 MB of base64 (1,536 would be 17 MB, and the simulator the bottleneck).
  const embeddingsBody = (encoding) =>
    JSON.stringify({ model: 'text-embedding-3-small', encoding_format: encoding, dimensions: 256, input: Array.from({ length: 2048 }, (_, i) => `chunk ${i} of a document about gateways`) });
  const embeddings = (encoding) => {
    const body = embeddingsBody(encoding);
    return {
      direct: { url: `${ctx.upstream.openai}/v1/embeddings`, headers: { ...json, authorization: 'Bearer simulator-key' }, body },
      ours: { url: `${ctx.gateway}/v1/embeddings`, headers: { ...json, authorization: `Bearer ${ctx.keys.bootstrap}` }, body },
      portkey: ctx.portkey
        ? { url: `${ctx.portkey}/v1/embeddings`, headers: { ...json, authorization: 'Bearer simulator-key', 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${ctx.upstream.openai}/v1` }, body }
        : null,
    };
  };
  const geminiBody = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: SHORT_PROMPT }] }] });

  const list = [
    {
      name: 'chat',
      description: 'Non-stream chat, small body (bootstrap key)',
      targets: { direct: openaiDirect(small.direct), ours: ours(small.ours), portkey: portkey(small.direct) },
    },
    {
      name: 'stream',
      description: 'Stream chat, 50 events (bootstrap key)',
      stream: true,
      targets: { direct: openaiDirect(s50.direct), ours: ours(s50.ours), portkey: portkey(s50.direct) },
    },
    {
      name: 'body-100k',
      description: `Non-stream chat with a ${Math.round(big.ours.length / 1024)} KB body (tool catalogue)`,
      targets: { direct: openaiDirect(big.direct), ours: ours(big.ours), portkey: portkey(big.direct) },
    },
    {
      name: 'gemini',
      description: 'Gemini-native generateContent pass-through (no Portkey equivalent)',
      targets: {
        direct: {
          url: `${ctx.upstream.gemini}/v1beta/models/gemini-2.5-flash-lite:generateContent`,
          headers: { ...json, 'x-goog-api-key': 'simulator-key' },
          body: geminiBody,
        },
        ours: {
          url: `${ctx.gateway}/v1beta/models/gamma-2.5-flash-lite:generateContent`,
          headers: { ...json, 'x-goog-api-key': ctx.keys.bootstrap },
          body: geminiBody,
        },
        portkey: null,
      },
    },
    {
      name: 'embeddings',
      description: 'Embeddings, 2,048 short inputs, base64 (the SDKs\' default): the answer relayed as text',
      concurrency: [1, 16],
      // One request is 2,048 vectors of the simulator's work (about a second on a busy machine): long enough to count several.
      durationS: 10,
      targets: embeddings('base64'),
    },
    {
      name: 'embeddings-float',
      description: 'Embeddings, 2,048 short inputs, float (256 floats each as JSON)',
      concurrency: [1, 16],
      durationS: 10,
      targets: embeddings('float'),
    },
    {
      // Issue 32: the probe request stores the answer, every measured one is a hit (no upstream call).
      name: 'cache-hit',
      description: 'Non-stream chat answered from the response cache (key with caching on), against the direct-to-upstream ceiling',
      targets: { direct: openaiDirect(small.direct), ours: ctx.keys.cached ? ours(small.ours, ctx.keys.cached) : null, portkey: null },
    },
    {
      name: 'auth-limited',
      description: 'Non-stream chat on a restricted key with rpm/tpm limits (auth, validation, limit check, routing, usage)',
      targets: { direct: openaiDirect(small.direct), ours: ours(small.ours, ctx.keys.limited), portkey: portkey(small.direct) },
    },
    {
      name: 'auth-stream-20',
      description: 'Stream chat, 20 events, on the restricted key with limits',
      stream: true,
      concurrency: [64, 256],
      targets: { direct: openaiDirect(s20.direct), ours: ours(s20.ours, ctx.keys.limited), portkey: portkey(s20.direct) },
    },
  ];
  if (ctx.upstream.slow) {
    list.push({
      name: 'slow-streams',
      description: '1,000 concurrent slow streams (20 events, one every 100 ms)',
      stream: true,
      concurrency: [1000],
      durationS: 6,
      targets: {
        direct: openaiDirect(s20.direct, ctx.upstream.slow),
        ours: ours(s20.ours.replace('"delta-4.1"', '"epsilon-4.7"')),
        portkey: portkey(s20.direct, ctx.upstream.slow),
      },
    });
  }
  return list;
}

/** Whether a probe answer looks right for the scenario (a stream must end in [DONE]). */
export function probeLooksRight(scenario, { status, text }) {
  if (status !== 200) return false;
  return scenario.stream ? text.includes('[DONE]') : text.startsWith('{');
}
