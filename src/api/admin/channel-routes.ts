import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError, isGatewayError } from '../../errors.js';
import type { Channel } from '../../gateway/channel.js';
import { HEALTH_WINDOW_MS } from '../../gateway/channel-health.js';
import { dispatchJson } from '../../gateway/dispatch.js';
import type { OpenAIChatRequest, OpenAIChatCompletion } from '../../protocols/openai-chat/types.js';
import { validated } from './route-validation.js';
import {
  ChannelIdParams, ChannelList, ChannelTestResult, ChannelView, PatchChannelBody, TestChannelBody,
  validatePatchChannel, validateTestChannel, type PatchChannelBody as PatchBody, type TestChannelBody as TestBody,
} from './channel-schemas.js';

const CIRCUIT = ['closed', 'half_open', 'open'] as const;
/** Families a one-line chat message can test. */
const TEXT_FAMILIES = new Set(['chat-completions', 'messages', 'responses', 'generate-content']);

/** Where a channel sends requests, without credentials or query (a base URL may carry either). */
function displayUrl(channel: Channel): string {
  if (channel.isSimulator) return 'built-in simulator';
  try {
    const url = new URL(channel.baseUrl);
    return `${url.protocol}//${url.host}${url.pathname}`.replace(/\/$/, '');
  } catch {
    return '(invalid URL)';
  }
}

/**
 * Channels and models for operators (issue 12): each channel's health on this instance (circuit,
 * error rate and latency percentiles over the last minutes, last error), runtime enable/disable,
 * weight and priority (kept in the database, applied on every instance) and a one-message test.
 */
export async function adminChannelRoutes(app: FastifyInstance, { opts }: { opts: (summary: string, schema?: Record<string, unknown>) => object }): Promise<void> {
  const { channelControl, channelHealth, circuits, config } = app.gateway;

  const view = (channel: Channel) => {
    const health = channelHealth.figures(channel.name);
    const file = channelControl.fileSettingsOf(channel.name)!;
    const enabled = channelControl.isEnabled(channel.name);
    return {
      id: channel.name,
      vendor: channel.vendor,
      base_url: displayUrl(channel),
      simulator: channel.isSimulator,
      enabled,
      weight: channel.weight,
      priority: channel.priority,
      file,
      overridden: enabled !== file.enabled || channel.weight !== file.weight || channel.priority !== file.priority,
      models: Object.keys(channel.models),
      circuit: CIRCUIT[circuits.stateOf(channel.name)],
      window_s: HEALTH_WINDOW_MS / 1000,
      requests: health.requests,
      error_rate: health.error_rate,
      latency_p50_ms: health.latency_p50_ms,
      latency_p99_ms: health.latency_p99_ms,
      last_error: health.last_error && { ...health.last_error, at: new Date(health.last_error.at).toISOString() },
    };
  };
  const found = (request: FastifyRequest): Channel => {
    const { id } = request.params as { id: string };
    const channel = channelControl.find(id);
    if (!channel) throw new GatewayError('GW_RESOURCE_NOT_FOUND', `No channel '${id}'`);
    return channel;
  };

  app.get('/admin/api/channels', opts('Channels with their settings and recent health', { response: { 200: ChannelList } }), async () => ({
    object: 'list' as const,
    data: channelControl.all.map(view),
  }));

  app.get('/admin/api/channels/:id', opts('One channel with its settings and recent health', { params: ChannelIdParams, response: { 200: ChannelView } }), async (request) =>
    view(found(request)),
  );

  app.patch(
    '/admin/api/channels/:id',
    {
      ...opts('Enable or disable a channel, or change its weight or priority, at runtime (null: back to the file value)', {
        params: ChannelIdParams,
        body: PatchChannelBody,
        response: { 200: ChannelView },
      }),
      validatorCompiler: validated(validatePatchChannel),
    },
    async (request) => {
      const channel = found(request);
      await channelControl.update(channel.name, request.body as PatchBody);
      return view(channelControl.find(channel.name)!);
    },
  );

  app.post(
    '/admin/api/channels/:id/test',
    {
      ...opts('Send one short chat message through this channel only (enabled or not; no retries; not billed to any key)', {
        params: ChannelIdParams,
        body: TestChannelBody,
        response: { 200: ChannelTestResult },
      }),
      // The body is optional: a bare POST tests the channel's first text model.
      validatorCompiler: validated((value) => validateTestChannel(value ?? {})),
    },
    async (request, reply) => {
      const channel = found(request);
      const asked = (request.body as TestBody | undefined)?.model;
      const model = asked ?? Object.keys(channel.models).find((id) => app.gateway.catalog.find(id)?.families.some((f) => TEXT_FAMILIES.has(f)));
      if (model === undefined || !Object.hasOwn(channel.models, model)) {
        throw new GatewayError('GW_REQ_INVALID_PARAM', asked ? `Channel '${channel.name}' does not serve '${asked}'` : `Channel '${channel.name}' serves no text model to test`, { param: 'model' });
      }
      if (!channel.provider.pairs['chat-completions']) {
        throw new GatewayError('GW_REQ_INVALID_PARAM', `Channel '${channel.name}' (${channel.vendor}) has no chat protocol to test with`);
      }
      const body: OpenAIChatRequest = { model, messages: [{ role: 'user', content: 'Reply with one word: ok' }], max_tokens: 16 };
      const startedAt = Date.now();
      try {
        const result = await dispatchJson({ family: 'chat-completions', model, body, request, reply, channels: [{ ...channel, maxRetries: 0 }] });
        const text = (result.body as OpenAIChatCompletion).choices?.[0]?.message?.content;
        return { ok: true, model, status: 200, latency_ms: Date.now() - startedAt, reply: typeof text === 'string' ? text.slice(0, 200) : null, error: null };
      } catch (error) {
        const failure = isGatewayError(error) ? error : new GatewayError('GW_UPSTREAM_ERROR', 'The test request failed');
        return { ok: false, model, status: failure.status, latency_ms: Date.now() - startedAt, reply: null, error: failure.message };
      }
    },
  );
}
