#!/usr/bin/env node
// The floors `npm run bench -- --floor` measures the gateway against: pass-through proxies with
// no auth, validation, limits, routing or accounting, on the same Node and undici.
//
//   node bench/lib/floor-proxy.js node    <upstream origin> <port>
//   node bench/lib/floor-proxy.js fastify <upstream origin> <port>
//
// `node`: node:http in, undici's dispatch out, bytes relayed as they arrive: the least a Node
// proxy can spend per request. `fastify`: the issue's reference "bare Fastify + undici
// pass-through": the body parsed and re-serialised, undici's request(), the response body piped
// back by Fastify. Both print `ready` once listening.
import http from 'node:http';
import { Pool } from 'undici';

const [kind, upstream, port] = process.argv.slice(2);
const pool = new Pool(upstream, { pipelining: 1 });
const ready = () => process.stdout.write('ready\n');

function upstreamHeaders(authorization) {
  return { 'content-type': 'application/json', authorization };
}

if (kind === 'node') {
  http
    .createServer((req, res) => {
      const chunks = [];
      req.on('data', (chunk) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        pool.dispatch(
          { path: req.url, method: req.method, headers: upstreamHeaders(req.headers.authorization), body },
          {
            onRequestStart() {},
            onResponseStart(_controller, status, headers) {
              res.writeHead(status, { 'content-type': headers['content-type'] });
            },
            onResponseData(_controller, chunk) {
              res.write(chunk);
            },
            onResponseEnd() {
              res.end();
            },
            onResponseError() {
              if (!res.headersSent) res.writeHead(502);
              res.end();
            },
          },
        );
      });
    })
    .listen(Number(port), '127.0.0.1', ready);
} else if (kind === 'fastify') {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  app.post('/v1/chat/completions', async (request, reply) => {
    const answer = await pool.request({
      path: '/v1/chat/completions',
      method: 'POST',
      headers: upstreamHeaders(request.headers.authorization),
      body: JSON.stringify(request.body),
    });
    reply.code(answer.statusCode).header('content-type', answer.headers['content-type']);
    return reply.send(answer.body);
  });
  await app.listen({ port: Number(port), host: '127.0.0.1' });
  ready();
} else {
  process.stderr.write(`floor-proxy: unknown kind '${kind}' (node or fastify)\n`);
  process.exit(2);
}
