#!/usr/bin/env node
// A fake OpenAI chat upstream that streams the way a real model does (issue 36): the first
// token at once, then one every --interval-ms (50 by default) until max_tokens have gone, so a
// stream lasts max_tokens × interval. One process, one timer per stream; GET /healthz answers at
// once, so its latency shows this process's own event-loop delay. Prints {"url": …} when ready.
// Not the gateway's simulator (src/simulator): this one exists only to hold many streams open.
// --processes N: N processes share the port (node:cluster), so that on a many-core machine the
// fake upstream is never what limits the streams a gateway holds.
import cluster from 'node:cluster';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({ options: { 'interval-ms': { type: 'string', default: '50' }, port: { type: 'string', default: '0' }, processes: { type: 'string', default: '1' } } });
const processes = Math.max(1, Number(args.processes));
const intervalMs = Number(args['interval-ms']);

const chunk = (delta, extra = {}) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-long', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;

function stream(res, tokens) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(chunk({ role: 'assistant', content: 'tok' }));
  let sent = 1;
  const timer = setInterval(() => {
    if (sent < tokens) {
      res.write(chunk({ content: ' tok' }));
      sent++;
      return;
    }
    clearInterval(timer);
    const finish = JSON.stringify({ id: 'chatcmpl-long', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    const usage = JSON.stringify({ id: 'chatcmpl-long', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1', choices: [], usage: { prompt_tokens: 8, completion_tokens: tokens, total_tokens: 8 + tokens } });
    res.end(`data: ${finish}\n\ndata: ${usage}\n\ndata: [DONE]\n\n`);
  }, intervalMs);
  res.on('close', () => clearInterval(timer));
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/healthz') return res.end('ok');
  const parts = [];
  req.on('data', (part) => parts.push(part));
  req.on('end', () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(parts).toString('utf8'));
    } catch {
      return res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"bad json"}}');
    }
    if (!req.url.endsWith('/chat/completions') || body.stream !== true) {
      return res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"only streamed chat"}}');
    }
    stream(res, Math.max(1, Number(body.max_tokens) || 1));
  });
});
// Streams outlive Node's default request and keep-alive timeouts; a 10,000-stream ramp needs a deep accept queue.
server.requestTimeout = 0;
server.headersTimeout = 0;
server.keepAliveTimeout = 60_000;
const announce = (port) => process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${port}` }) + '\n');
if (processes > 1 && cluster.isPrimary) {
  // Workers given port 0 share the one port the primary picks; announced once all listen.
  let listening = 0;
  for (let i = 0; i < processes; i++) {
    cluster.fork().on('message', (port) => {
      if (++listening === processes) announce(port);
    });
  }
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    process.exit(0);
  });
} else {
  server.listen({ port: Number(args.port), host: '127.0.0.1', backlog: 65_535 }, () => {
    if (cluster.isWorker) process.send(server.address().port);
    else announce(server.address().port);
  });
  process.on('SIGTERM', () => process.exit(0));
}
