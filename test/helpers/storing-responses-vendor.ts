import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

export interface StoringResponsesVendor {
  url: string;
  /** Ids this account stored. */
  stored: Set<string>;
  /** Paths requested, in order. */
  paths: string[];
  /** The bodies of those requests, in the same order. */
  bodies: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * One OpenAI account's Responses API as far as stored responses go: it stores what it answers
 * (unless `store: false`) and refuses a `previous_response_id` it did not store with OpenAI's own
 * 400 (`previous_response_not_found`), as the real API does for another account's id. JSON or SSE.
 * `chatOnly`: a server without Responses (DeepSeek, vLLM setups) that answers /responses with 404
 * and serves /chat/completions only.
 */
export async function startStoringResponsesVendor(options: { chatOnly?: boolean } = {}): Promise<StoringResponsesVendor> {
  const stored = new Set<string>();
  const paths: string[] = [];
  const bodies: Array<Record<string, unknown>> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://vendor').pathname;
      paths.push(path);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      bodies.push(body);
      if (path.endsWith('/chat/completions')) return chatAnswer(body, res);
      if (!path.endsWith('/responses') || options.chatOnly) return error(res, 404, { message: `Not found: ${path}`, type: 'invalid_request_error', param: null, code: 'not_found' });
      answerResponses(req, body, res, stored);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stored,
    paths,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function error(res: ServerResponse, status: number, detail: Record<string, unknown>): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: detail }));
}

function answerResponses(req: IncomingMessage, body: Record<string, unknown>, res: ServerResponse, stored: Set<string>): void {
  if (req.headers.authorization !== 'Bearer k') return error(res, 401, { message: 'Incorrect API key provided', type: 'invalid_request_error', param: null, code: 'invalid_api_key' });
  const previous = body.previous_response_id;
  if (typeof previous === 'string' && !stored.has(previous)) {
    return error(res, 400, { message: `Previous response with id '${previous}' not found.`, type: 'invalid_request_error', param: 'previous_response_id', code: 'previous_response_not_found' });
  }
  const id = `resp_${randomBytes(12).toString('hex')}`;
  if (body.store !== false) stored.add(id);
  const text = typeof previous === 'string' ? `continuing ${previous}` : 'first answer';
  const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 3, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 13 };
  const message = { type: 'message', id: `msg_${id}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
  const response = { id, object: 'response', created_at: 1_700_000_000, status: 'completed', model: body.model, output: [message], usage, previous_response_id: previous ?? null, store: body.store !== false };
  if (body.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(response));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const events = [
    { type: 'response.created', response: { ...response, status: 'in_progress', output: [], usage: null } },
    { type: 'response.output_item.added', output_index: 0, item: { ...message, status: 'in_progress', content: [] } },
    { type: 'response.output_text.delta', output_index: 0, content_index: 0, item_id: message.id, delta: text },
    { type: 'response.output_item.done', output_index: 0, item: message },
    { type: 'response.completed', response },
  ];
  events.forEach((event, i) => res.write(`event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: i })}\n\n`));
  res.end();
}

function chatAnswer(body: Record<string, unknown>, res: ServerResponse): void {
  const usage = { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 };
  const base = { id: `chatcmpl-${randomBytes(6).toString('hex')}`, object: 'chat.completion', created: 1_700_000_000, model: body.model };
  if (body.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...base, choices: [{ index: 0, message: { role: 'assistant', content: 'chat answer' }, finish_reason: 'stop' }], usage }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (delta: object, finish: string | null, extra = {}) => `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
  res.write(chunk({ role: 'assistant', content: 'chat ' }, null));
  res.write(chunk({ content: 'answer' }, null));
  res.write(chunk({}, 'stop', { usage }));
  res.write('data: [DONE]\n\n');
  res.end();
}
