import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';

/** Framing headers the outer reply sets itself. */
const NOT_COPIED = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);

/**
 * The browsable API reference at /docs (swagger-ui), set up at its first request (issue 24): the
 * UI plugin and its static-file server (@fastify/static, glob, send, mime…) stay out of every
 * gateway process nobody browses. swagger-ui runs in a small Fastify instance of its own,
 * answering through inject(), and renders this app's OpenAPI document (`app.swagger()`).
 */
export async function docsUi(app: FastifyInstance): Promise<void> {
  let ui: Promise<FastifyInstance> | undefined;
  const build = async (): Promise<FastifyInstance> => {
    const { fastifySwaggerUi } = await import('@fastify/swagger-ui');
    const docs = Fastify({ logger: false });
    docs.decorate('swagger', ((options?: { yaml?: boolean }) => app.swagger(options as never)) as FastifyInstance['swagger']);
    // Called from a plugin of our own: registered directly, its metadata would insist on
    // @fastify/swagger in this instance, whose document lives in the gateway's.
    // staticCSP: the docs page gets a Content-Security-Policy with hashes of its own inline code.
    // (It is an async function; its typings call it a callback plugin.)
    const plugin = fastifySwaggerUi as unknown as (instance: FastifyInstance, options: FastifySwaggerUiOptions) => Promise<void>;
    // BaseLayout: no top bar. Its "explore another document" box has no use here, and its logo is an
    // SVG with an inline <style> the page's CSP refuses (a console error on every visit, issue 35).
    const options: FastifySwaggerUiOptions = { routePrefix: '/docs', uiConfig: { docExpansion: 'list', layout: 'BaseLayout' }, staticCSP: true };
    await docs.register(async (instance) => plugin(instance, options));
    await docs.ready();
    return docs;
  };
  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    const docs = await (ui ??= build().catch((error: unknown) => {
      ui = undefined;
      throw error;
    }));
    const answer = await docs.inject({ method: request.method as 'GET' | 'HEAD', url: request.url, headers: request.headers });
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !NOT_COPIED.has(name)) reply.header(name, value);
    }
    reply.code(answer.statusCode);
    return answer.rawPayload.length > 0 ? reply.send(answer.rawPayload) : reply.send();
  };
  // The reference is public, like the OpenAPI document it renders.
  const route = { config: { isPublic: true }, schema: { hide: true } };
  app.get('/docs', route, serve);
  app.get('/docs/*', route, serve);
}
