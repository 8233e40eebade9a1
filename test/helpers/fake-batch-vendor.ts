import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseMultipartText } from '../../src/simulator/batch-store.js';

/** One request the fake batch vendor received. */
export interface FakeBatchCall {
  method: string;
  path: string;
  authorization: string | undefined;
}

export interface FakeBatchVendor {
  url: string;
  calls: FakeBatchCall[];
  /** The JSONL input files uploaded, by file id. */
  uploads: Map<string, string>;
  close(): Promise<void>;
}

interface FakeBatch {
  id: string;
  inputFileId: string;
  endpoint: string;
  polls: number;
  status: string;
  outputFileId?: string;
  errorFileId?: string;
}

/**
 * A vendor speaking OpenAI's Files and Batch APIs as a real HTTP server (issue 46), for the
 * native batch tests: it takes the multipart upload, runs a batch that completes (or fails, for
 * a line named `reject-all`) on its third poll, and answers each input line in the output file (a line whose custom_id starts with `bad`
 * in the error file, its message quoting the key as careless upstreams do). Chat calls are
 * answered too, so a test can assert that none were made.
 */
export async function startFakeBatchVendor(apiKey: string): Promise<FakeBatchVendor> {
  const calls: FakeBatchCall[] = [];
  const uploads = new Map<string, string>();
  const files = new Map<string, string>();
  const batches = new Map<string, FakeBatch>();
  let next = 0;
  const json = (res: import('node:http').ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const path = new URL(req.url ?? '/', 'http://fake').pathname;
      calls.push({ method: req.method ?? 'GET', path, authorization: req.headers.authorization });
      if (req.headers.authorization !== `Bearer ${apiKey}`) return json(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } });
      if (req.method === 'POST' && path === '/v1/files') {
        const parts = parseMultipartText(text, req.headers['content-type']);
        if (parts.get('purpose')?.value !== 'batch' || !parts.get('file')) return json(res, 400, { error: { message: 'file and purpose=batch required' } });
        const id = `file-in${++next}`;
        uploads.set(id, parts.get('file')!.value);
        return json(res, 200, { id, object: 'file', purpose: 'batch', bytes: parts.get('file')!.value.length });
      }
      if (req.method === 'POST' && path === '/v1/batches') {
        const body = JSON.parse(text) as { input_file_id: string; endpoint: string; completion_window: string };
        if (!uploads.has(body.input_file_id) || body.completion_window !== '24h') return json(res, 400, { error: { message: 'bad batch' } });
        const batch: FakeBatch = { id: `batch_${++next}`, inputFileId: body.input_file_id, endpoint: body.endpoint, polls: 0, status: 'validating' };
        batches.set(batch.id, batch);
        return json(res, 200, { id: batch.id, object: 'batch', status: batch.status });
      }
      const batchMatch = /^\/v1\/batches\/([^/]+)(\/cancel)?$/.exec(path);
      if (batchMatch) {
        const batch = batches.get(batchMatch[1]!);
        if (!batch) return json(res, 404, { error: { message: 'no such batch' } });
        if (req.method === 'POST' && batchMatch[2]) {
          batch.status = 'cancelled';
          return json(res, 200, { id: batch.id, object: 'batch', status: 'cancelling' });
        }
        if (batch.status !== 'cancelled' && ++batch.polls >= 3 && batch.status !== 'completed') finish(batch);
        else if (batch.status === 'validating') batch.status = 'in_progress';
        const errors = batch.status === 'failed' ? { object: 'list', data: [{ code: 'invalid_request', message: `Input refused for key ${apiKey}`, line: 1 }] } : null;
        return json(res, 200, { id: batch.id, object: 'batch', status: batch.status, output_file_id: batch.outputFileId ?? null, error_file_id: batch.errorFileId ?? null, errors });
      }
      const fileMatch = /^\/v1\/files\/([^/]+)\/content$/.exec(path);
      if (fileMatch && files.has(fileMatch[1]!)) {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return res.end(files.get(fileMatch[1]!));
      }
      if (path === '/v1/chat/completions') return json(res, 200, { id: 'chatcmpl-sync', object: 'chat.completion', choices: [] });
      json(res, 404, { error: { message: `no route ${path}` } });
    });
  });

  function finish(batch: FakeBatch): void {
    // A line named `reject-all` makes the whole input refused, as a malformed file is.
    if (uploads.get(batch.inputFileId)!.includes('"custom_id":"reject-all"')) {
      batch.status = 'failed';
      return;
    }
    batch.status = 'completed';
    const output: string[] = [];
    const errors: string[] = [];
    for (const line of uploads.get(batch.inputFileId)!.trim().split('\n')) {
      const { custom_id: customId, body } = JSON.parse(line) as { custom_id: string; body: { model: string; messages: { content: string }[] } };
      if (customId.startsWith('bad')) {
        errors.push(JSON.stringify({ id: `batch_req_${customId}`, custom_id: customId, response: { status_code: 400, request_id: 'req_x', body: { error: { message: `Invalid request for key ${apiKey}`, type: 'invalid_request_error' } } }, error: null }));
        continue;
      }
      const completion = {
        id: `chatcmpl-${customId}`,
        object: 'chat.completion',
        created: 1_700_000_000,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: `Answer to ${body.messages.at(-1)!.content}` }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 },
      };
      output.push(JSON.stringify({ id: `batch_req_${customId}`, custom_id: customId, response: { status_code: 200, request_id: 'req_y', body: completion }, error: null }));
    }
    // Output lines are not in input order (batch guide): the gateway joins on custom_id.
    output.reverse();
    batch.outputFileId = `file-out${++next}`;
    files.set(batch.outputFileId, output.join('\n') + '\n');
    if (errors.length > 0) {
      batch.errorFileId = `file-err${++next}`;
      files.set(batch.errorFileId, errors.join('\n') + '\n');
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    uploads,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
