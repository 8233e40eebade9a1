import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { UsageEvent } from '../usage/usage-recorder.js';

/**
 * One usage event per request on a model endpoint, whatever its end: recorded when the
 * connection closes, so hijacked streams, client disconnects and errors are all counted.
 */
export function registerUsageRecording(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!request.routeOptions.config.family) return;
    reply.raw.once('close', () => app.gateway.usage.record(usageEventFor(request, reply)));
  });
}

function usageEventFor(request: FastifyRequest, reply: FastifyReply): UsageEvent {
  const gw = request.gw;
  const now = Date.now();
  const usage = gw.usage;
  return {
    request_id: request.id,
    key_id: gw.key?.id ?? null,
    model: gw.model ?? '',
    channel: gw.channel ?? null,
    family: gw.family ?? 'unknown',
    status: reply.raw.statusCode,
    outcome: outcomeOf(request, reply),
    prompt_tokens: usage?.promptTokens ?? 0,
    completion_tokens: usage?.completionTokens ?? 0,
    reasoning_tokens: usage?.reasoningTokens ?? 0,
    images: usage?.images ?? 0,
    video_seconds: usage?.videoSeconds ?? 0,
    cost_usd: 0,
    latency_ms: now - gw.startedAt,
    ttft_ms: gw.firstTokenAt === undefined ? null : gw.firstTokenAt - gw.startedAt,
    created_at: now,
  };
}

function outcomeOf(request: FastifyRequest, reply: FastifyReply): string {
  if (!reply.raw.writableFinished) return 'client_disconnect';
  if (request.gw.streamError) return 'stream_error';
  return reply.raw.statusCode < 400 ? 'success' : 'error';
}
