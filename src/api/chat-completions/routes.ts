import type { FastifyInstance } from 'fastify';

export async function chatCompletionsRoutes(_app: FastifyInstance): Promise<void> {
  // Filled in below.
}
