import type { FastifyReply, FastifyRequest } from 'fastify';
import { SseWriter } from '../sse/write.js';
import type { Channel } from './channel.js';

/**
 * Takes the reply over and sends the stream's head with the reply's own headers (x-ratelimit-*,
 * x-cache); `channel`, when an upstream answers, marks a simulated answer.
 */
export function openClientStream(request: FastifyRequest, reply: FastifyReply, channel?: Channel): SseWriter {
  reply.hijack();
  const writer = new SseWriter(reply.raw);
  const headers: Record<string, unknown> = reply.getHeaders();
  headers['x-request-id'] = request.id;
  if (channel?.isSimulator) headers['x-simulator'] = channel.vendor;
  writer.open(headers);
  return writer;
}
