import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError, isGatewayError } from '../../errors.js';
import type { Channel } from '../../gateway/channel.js';
import { dispatchJson } from '../../gateway/dispatch.js';
import type { OpenAIChatRequest, OpenAIChatCompletion } from '../../protocols/openai-chat/types.js';
import { validated } from '../management/route-validation.js';
import { ChannelIdParams, ChannelList, ChannelTestResult, ChannelView, TestChannelBody, validateTestChannel, type TestChannelBody as TestBody } from './channel-schemas.js';
import { channelViewer } from './channel-view.js';
import type { ChannelTestRecord } from '../../gateway/channel-state-store.js';
import { adminChannelEditRoutes } from './channel-edit-routes.js';

/** Families a one-line chat message can test. */
const TEXT_FAMILIES = new Set(['chat-completions', 'messages', 'responses', 'generate-content']);

/**
 * Channels for operators (issue 12): each channel's health on this instance (circuit, error rate
 * and latency percentiles over the last minutes, last error) and a one-message test; adding,
 * changing and removing them at runtime is channel-edit-routes.ts (issue 21).
 */
export async function adminChannelRoutes(app: FastifyInstance, { opts }: { opts: (summary: string, schema?: Record<string, unknown>) => object }): Promise<void> {
  const { channelControl } = app.gateway;

  const view = channelViewer(app.gateway);
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

  await adminChannelEditRoutes(app, { opts, view, found });

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
      const at = new Date(startedAt).toISOString();
      let result: ChannelTestRecord;
      try {
        const answer = await dispatchJson({ family: 'chat-completions', model, body, request, reply, channels: [{ ...channel, maxRetries: 0 }] });
        const text = (answer.body as OpenAIChatCompletion).choices?.[0]?.message?.content;
        result = { at, ok: true, model, status: 200, latency_ms: Date.now() - startedAt, reply: typeof text === 'string' ? text.slice(0, 200) : null, error: null, vendor_status: null, vendor_message: null };
      } catch (error) {
        const failure = isGatewayError(error) ? error : new GatewayError('GW_UPSTREAM_ERROR', 'The test request failed');
        result = { at, ok: false, model, status: failure.status, latency_ms: Date.now() - startedAt, reply: null, error: failure.message, vendor_status: request.gw.attempts?.at(-1)?.status ?? null, vendor_message: failure.vendorMessage ?? null };
      }
      // Kept for every instance's console (issue 35): the result outlives a reload.
      await channelControl.recordTest(channel.name, result);
      return result;
    },
  );
}
