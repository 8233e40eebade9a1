import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import { pino } from 'pino';
import { redactUrl } from './redact-url.js';

/**
 * The gateway's one logger, made before anything else so every part logs from its start
 * (issue 43); the app logs through it too (Fastify's `loggerInstance`, which adds its `res`
 * serializer in a child that writes the same lines).
 */
export function gatewayLogger(level: string): FastifyBaseLogger {
  return pino({
    level: level || 'info',
    // Secrets never reach the logs: auth headers are dropped and `?key=` is masked.
    redact: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers["x-goog-api-key"]'],
    serializers: {
      req: (req: FastifyRequest) => ({ method: req.method, url: redactUrl(req.url), id: req.id }),
    },
  });
}
