import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../errors.js';

/**
 * The console's HTML: scripts and styles only from the gateway itself (Vite emits no inline
 * script), API calls only to the same origin, and no framing (clickjacking on key actions).
 */
const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Vite names every file under assets/ by its content hash, so a browser may keep them for good. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
  '.webmanifest': 'application/manifest+json',
};

export interface ConsoleStaticOptions {
  /** The built app (index.html and assets/); by default dist/web, else web/dist, of this package. */
  dir?: string;
}

/** dist/api/console/static-app.js and src/api/console/static-app.ts are both three folders below the package root. */
const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DEFAULT_DIRS = [join(PACKAGE_ROOT, 'dist', 'web'), join(PACKAGE_ROOT, 'web', 'dist')];

async function isFile(path: string): Promise<{ size: number; mtimeMs: number } | undefined> {
  try {
    const info = await stat(path);
    return info.isFile() ? info : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Serves the console single-page app at /console (issue 12): a real file under the build folder
 * when there is one, else index.html, so every client-side route (/console/token, deep links,
 * reloads) starts the app. /console/api/* is never the app: an unknown API path is a JSON 404.
 * Looked up per request, so a build made while the gateway runs is served without a restart.
 */
export async function consoleStaticApp(app: FastifyInstance, options: ConsoleStaticOptions = {}): Promise<void> {
  const candidates = options.dir ? [resolve(options.dir)] : DEFAULT_DIRS;
  const buildDir = async (): Promise<string | undefined> => {
    for (const dir of candidates) if (await isFile(join(dir, 'index.html'))) return dir;
    return undefined;
  };

  const send = async (request: FastifyRequest, reply: FastifyReply, path: string, info: { size: number; mtimeMs: number }, cacheControl: string) => {
    const etag = `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
    reply.header('cache-control', cacheControl).header('etag', etag);
    const type = CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
    reply.type(type);
    if (type.startsWith('text/html')) reply.header('content-security-policy', CONSOLE_CSP);
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    // Streamed from disk: no copy of the app's bundles is held in memory (issue 24).
    return reply.header('content-length', info.size).send(createReadStream(path));
  };

  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    // Fastify has decoded the wildcard already; decoding again would turn %2e%2e into ..
    const rest = (request.params as { '*'?: string })['*'] ?? '';
    if (rest === 'api' || rest.startsWith('api/')) {
      throw new GatewayError('GW_ROUTE_NOT_FOUND', `No endpoint ${request.method} ${request.url.split('?')[0]}`);
    }
    const dir = await buildDir();
    if (!dir) {
      return reply.code(503).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send('The console is not built. Run `npm run build` (it builds the web app into dist/web), then reload.\n');
    }
    if (rest !== '' && !rest.includes('\0')) {
      const file = resolve(dir, rest);
      const info = file.startsWith(dir + sep) ? await isFile(file) : undefined;
      if (info) return send(request, reply, file, info, rest.startsWith('assets/') ? IMMUTABLE : 'no-cache');
      // A missing hashed file is an old build's: answering index.html would hand HTML to a <script>.
      if (rest.startsWith('assets/')) throw new GatewayError('GW_ROUTE_NOT_FOUND', `No file ${request.url.split('?')[0]}`);
    }
    const index = join(dir, 'index.html');
    const info = await isFile(index);
    if (!info) return reply.code(503).type('text/plain; charset=utf-8').send('The console build is incomplete; run `npm run build`.\n');
    return send(request, reply, index, info, 'no-cache');
  };

  const route = { config: { isPublic: true }, schema: { hide: true } };
  app.get('/console', route, serve);
  app.get('/console/*', route, serve);
}
