import { answerLines, batchDelayOf, batchEnded, cancelledBeforeEnd, parseMultipartText, type SimBatch, type SimBatchLine } from '../../simulator/batch-store.js';
import type { SimErrorBody, SimHandler, SimRequest, SimResponse } from '../../simulator/server.js';

/**
 * OpenAI's Files and Batch APIs in the simulator (issue 46; openai-compatible/batch.ts lists the
 * routes): an uploaded JSONL file, a batch over it that runs `batch_delay_ms`, then output and
 * error files of result lines. Lines are answered by the simulator's own sync routes (`answer`).
 */
export interface OpenAIBatchesSimOptions {
  basePath: string;
  errorBody: SimErrorBody;
  /** The simulator's whole handler: what answers each line. */
  answer: SimHandler;
}

const FILE_PATH = /^\/files\/([^/]+)(\/content)?$/;
const BATCH_PATH = /^\/batches\/([^/]+)(\/cancel)?$/;
/** The operations a line may name, as OpenAI spells them (`/v1/chat/completions`) or Azure (`/chat/completions`). */
const OPERATIONS = new Set(['/chat/completions', '/embeddings', '/responses', '/completions']);
const operationOf = (endpoint: string): string => (endpoint.startsWith('/v1/') ? endpoint.slice('/v1'.length) : endpoint);

export function openAIBatchesSimHandler(options: OpenAIBatchesSimOptions): SimHandler {
  return async (req, res) => {
    if (!req.path.startsWith(options.basePath)) return false;
    const path = req.path.slice(options.basePath.length);
    if (req.method === 'POST' && path === '/files') return uploadFile(options, req, res);
    const file = FILE_PATH.exec(path);
    if (file && req.method === 'GET') return readFile(options, req, res, file[1]!, file[2] !== undefined);
    if (req.method === 'POST' && path === '/batches') return createBatch(options, req, res);
    const batch = BATCH_PATH.exec(path);
    if (batch && req.method === 'GET' && !batch[2]) return retrieveBatch(options, req, res, batch[1]!);
    if (batch && req.method === 'POST' && batch[2]) return cancelBatch(options, req, res, batch[1]!);
    return false;
  };
}

function uploadFile(options: OpenAIBatchesSimOptions, req: SimRequest, res: SimResponse): true {
  const parts = parseMultipartText(req.text ?? '', req.headers['content-type']);
  const file = parts.get('file');
  const purpose = parts.get('purpose')?.value;
  if (!file || file.filename === undefined || !purpose) {
    res.json(400, options.errorBody(400, "A multipart body with 'file' and 'purpose' is required"));
    return true;
  }
  const stored = req.batches.addFile({ filename: file.filename, purpose, createdAt: unixNow(), content: file.value });
  res.json(200, fileObject(stored));
  return true;
}

function readFile(options: OpenAIBatchesSimOptions, req: SimRequest, res: SimResponse, id: string, content: boolean): true {
  const file = req.batches.file(id);
  if (!file) res.json(404, options.errorBody(404, `No such File object: ${id}`));
  else if (content) res.bytes(200, Buffer.from(file.content, 'utf8'), 'application/octet-stream');
  else res.json(200, fileObject(file));
  return true;
}

async function createBatch(options: OpenAIBatchesSimOptions, req: SimRequest, res: SimResponse): Promise<true> {
  const body = req.body as { input_file_id?: unknown; endpoint?: unknown; completion_window?: unknown; metadata?: unknown } | undefined;
  const endpoint = body?.endpoint;
  if (typeof body?.input_file_id !== 'string' || typeof endpoint !== 'string' || !OPERATIONS.has(operationOf(endpoint)) || body.completion_window !== '24h') {
    res.json(400, options.errorBody(400, "input_file_id, a supported endpoint and completion_window '24h' are required"));
    return true;
  }
  const input = req.batches.file(body.input_file_id);
  if (!input) {
    res.json(404, options.errorBody(404, `No such File object: ${body.input_file_id}`));
    return true;
  }
  const lines = parseInput(input.content, endpoint, options.basePath);
  if (typeof lines === 'string') {
    res.json(400, options.errorBody(400, lines));
    return true;
  }
  const answers = await answerLines(options.answer, req, res, lines);
  const now = Date.now();
  const batch = req.batches.add(
    { createdAt: now, endsAt: now + batchDelayOf(res.options), lines, answers, meta: { endpoint, input_file_id: input.id, metadata: body.metadata ?? null } },
    'batch_',
  );
  res.json(200, batchObject(req, batch));
  return true;
}

function retrieveBatch(options: OpenAIBatchesSimOptions, req: SimRequest, res: SimResponse, id: string): true {
  const batch = req.batches.batch(id);
  if (!batch) res.json(404, options.errorBody(404, `No such batch: ${id}`));
  else res.json(200, batchObject(req, batch));
  return true;
}

function cancelBatch(options: OpenAIBatchesSimOptions, req: SimRequest, res: SimResponse, id: string): true {
  const batch = req.batches.batch(id);
  if (!batch) {
    res.json(404, options.errorBody(404, `No such batch: ${id}`));
    return true;
  }
  if (batchEnded(batch, Date.now())) {
    res.json(400, options.errorBody(400, `Cannot cancel a batch with status ${batchObject(req, batch).status}`));
    return true;
  }
  batch.cancelledAt = Date.now();
  // OpenAI answers `cancelling` at once; the next retrieve finds it cancelled.
  res.json(200, { ...batchObject(req, batch), status: 'cancelling' });
  return true;
}

/** Each JSONL line of the input, or the first problem (OpenAI fails the batch; the simulator refuses it). */
function parseInput(content: string, endpoint: string, basePath: string): SimBatchLine[] | string {
  const lines: SimBatchLine[] = [];
  const seen = new Set<string>();
  const texts = content.split('\n');
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i]!.trim();
    if (text === '') continue;
    let line: { custom_id?: unknown; method?: unknown; url?: unknown; body?: unknown };
    try {
      line = JSON.parse(text) as typeof line;
    } catch {
      return `Line ${i + 1} is not valid JSON`;
    }
    if (typeof line.custom_id !== 'string' || seen.has(line.custom_id)) return `Line ${i + 1}: custom_id missing or repeated`;
    if (line.method !== 'POST' || line.url !== endpoint) return `Line ${i + 1}: method must be POST and url the batch's endpoint`;
    seen.add(line.custom_id);
    lines.push({ customId: line.custom_id, path: basePath + operationOf(endpoint), body: line.body });
  }
  return lines.length > 0 ? lines : 'The input file has no requests';
}

/** The batch as OpenAI shows it; its result files are made the first time it is seen ended. */
function batchObject(req: SimRequest, batch: SimBatch): Record<string, unknown> {
  const now = Date.now();
  const ended = batchEnded(batch, now);
  const stopped = cancelledBeforeEnd(batch);
  if (ended && batch.outputFileId === undefined && batch.errorFileId === undefined) writeResultFiles(req, batch, stopped);
  const completed = stopped ? 0 : batch.answers.filter((answer) => answer.status < 400).length;
  const endedAt = Math.floor((batch.cancelledAt ?? batch.endsAt) / 1000);
  return {
    id: batch.id,
    object: 'batch',
    endpoint: batch.meta.endpoint,
    errors: null,
    input_file_id: batch.meta.input_file_id,
    completion_window: '24h',
    status: !ended ? 'in_progress' : stopped ? 'cancelled' : 'completed',
    output_file_id: batch.outputFileId ?? null,
    error_file_id: batch.errorFileId ?? null,
    created_at: Math.floor(batch.createdAt / 1000),
    in_progress_at: Math.floor(batch.createdAt / 1000),
    expires_at: Math.floor(batch.createdAt / 1000) + 86_400,
    finalizing_at: ended && !stopped ? endedAt : null,
    completed_at: ended && !stopped ? endedAt : null,
    failed_at: null,
    expired_at: null,
    cancelling_at: batch.cancelledAt === undefined ? null : Math.floor(batch.cancelledAt / 1000),
    cancelled_at: stopped ? endedAt : null,
    request_counts: { total: batch.lines.length, completed, failed: ended ? batch.lines.length - completed : 0 },
    metadata: batch.meta.metadata,
  };
}

function writeResultFiles(req: SimRequest, batch: SimBatch, stopped: boolean): void {
  const output: string[] = [];
  const errors: string[] = [];
  for (const [index, answer] of batch.answers.entries()) {
    const id = `batch_req_${batch.id.slice('batch_'.length)}_${index}`;
    if (stopped) errors.push(JSON.stringify({ id, custom_id: answer.customId, response: null, error: { code: 'batch_cancelled', message: 'The batch was cancelled before this request ran.' } }));
    else (answer.status < 400 ? output : errors).push(JSON.stringify({ id, custom_id: answer.customId, response: { status_code: answer.status, request_id: `req_${id}`, body: answer.body }, error: null }));
  }
  const file = (lines: string[], name: string) => (lines.length === 0 ? undefined : req.batches.addFile({ filename: name, purpose: 'batch_output', createdAt: unixNow(), content: lines.join('\n') + '\n' }).id);
  batch.outputFileId = file(output, `${batch.id}_output.jsonl`);
  batch.errorFileId = file(errors, `${batch.id}_error.jsonl`);
}

function fileObject(file: { id: string; filename: string; purpose: string; createdAt: number; content: string }): Record<string, unknown> {
  return { id: file.id, object: 'file', bytes: Buffer.byteLength(file.content), created_at: file.createdAt, filename: file.filename, purpose: file.purpose, status: 'processed', status_details: null };
}

const unixNow = (): number => Math.floor(Date.now() / 1000);
