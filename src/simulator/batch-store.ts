import { randomBytes } from 'node:crypto';
import { SimResponse, type SimHandler, type SimRequest } from './server.js';

/**
 * The simulators' batch state (issue 46): uploaded files and batches, in memory per simulator
 * server. Each vendor's simulator speaks its own batch protocol over this store; a line is answered
 * by the same simulator's sync route (answerLine), so a batch's answers are what the same requests
 * sent alone get. A batch runs for `batch_delay_ms`, then ends.
 */
export const DEFAULT_BATCH_DELAY_MS = 2_000;

/** The most files and batches one simulator keeps: the oldest go first. */
const MAX_ENTRIES = 1_000;

export interface SimFile {
  id: string;
  filename: string;
  purpose: string;
  createdAt: number;
  content: string;
}

/** One request of a batch, in the vendor's sync protocol. */
export interface SimBatchLine {
  customId: string;
  /** The sync route that answers it (`/v1/chat/completions`, `/v1/messages`). */
  path: string;
  body: unknown;
}

export interface SimLineAnswer {
  customId: string;
  status: number;
  body: unknown;
}

export interface SimBatch {
  id: string;
  createdAt: number;
  endsAt: number;
  lines: readonly SimBatchLine[];
  answers: readonly SimLineAnswer[];
  cancelledAt?: number | undefined;
  /** Vendor fields echoed back (OpenAI's endpoint, input file, metadata). */
  meta: Record<string, unknown>;
  /** Result files made when the batch ended (OpenAI's output and error files). */
  outputFileId?: string | undefined;
  errorFileId?: string | undefined;
}

export class SimBatches {
  private readonly files = new Map<string, SimFile>();
  private readonly batches = new Map<string, SimBatch>();

  addFile(file: Omit<SimFile, 'id'>, prefix = 'file-'): SimFile {
    const stored = { ...file, id: `${prefix}${randomBytes(12).toString('hex')}` };
    bounded(this.files).set(stored.id, stored);
    return stored;
  }

  file(id: string): SimFile | undefined {
    return this.files.get(id);
  }

  add(batch: Omit<SimBatch, 'id'>, prefix: string): SimBatch {
    const stored = { ...batch, id: `${prefix}${randomBytes(12).toString('hex')}` };
    bounded(this.batches).set(stored.id, stored);
    return stored;
  }

  batch(id: string): SimBatch | undefined {
    return this.batches.get(id);
  }

  list(prefix: string): SimBatch[] {
    return [...this.batches.values()].filter((batch) => batch.id.startsWith(prefix));
  }
}

/** Ended: its time passed, or it was cancelled. */
export const batchEnded = (batch: SimBatch, now: number): boolean => batch.cancelledAt !== undefined || now >= batch.endsAt;

/** The lines a cancel stopped: none once the batch had ended of itself. */
export const cancelledBeforeEnd = (batch: SimBatch): boolean => batch.cancelledAt !== undefined && batch.cancelledAt < batch.endsAt;

export const batchDelayOf = (options: { batch_delay_ms?: number | undefined }): number => options.batch_delay_ms ?? DEFAULT_BATCH_DELAY_MS;

/**
 * Answers each line through the simulator's own sync handler, with the batch request's headers
 * (keys, versions) and a response that captures the JSON instead of writing it.
 */
export async function answerLines(handle: SimHandler, req: SimRequest, res: SimResponse, lines: readonly SimBatchLine[]): Promise<SimLineAnswer[]> {
  const answers: SimLineAnswer[] = [];
  for (const line of lines) {
    const captured = new CapturedResponse(res);
    const text = JSON.stringify(line.body);
    const handled = await handle({ ...req, method: 'POST', path: line.path, url: new URL(line.path, req.url), query: {}, body: line.body, text }, captured);
    answers.push({ customId: line.customId, ...(handled && captured.answer ? captured.answer : { status: 404, body: { error: { message: `No route for POST ${line.path}` } } }) });
  }
  return answers;
}

/** A SimResponse that keeps the answer: batch lines are answered whole, never streamed. */
class CapturedResponse extends SimResponse {
  answer: { status: number; body: unknown } | undefined;

  constructor(parent: SimResponse) {
    // No socket: every method that would write is overridden.
    super(undefined as never, { ...parent.options, fault_status: undefined }, 'batch', new AbortController().signal);
  }

  override json(status: number, body: unknown): void {
    this.answer = { status, body };
  }

  override async jsonWithVectors(status: number, body: unknown): Promise<void> {
    const { renderWithVectors } = await import('./vector-pool.js');
    this.answer = { status, body: JSON.parse((await renderWithVectors(body)).toString('utf8')) as unknown };
  }

  override bytes(status: number, body: Buffer): void {
    this.answer = { status, body: body.toString('utf8') };
  }

  override async sse(): Promise<void> {
    this.answer = { status: 400, body: { error: { message: 'A batch request cannot stream' } } };
  }
}

/** Drops the oldest entry past MAX_ENTRIES (Maps keep insertion order). */
function bounded<V>(map: Map<string, V>): Map<string, V> {
  if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value!);
  return map;
}

/** The parts of a `multipart/form-data` body read as text: fields by name, and a file part's name. */
export function parseMultipartText(text: string, contentType: string | undefined): Map<string, { value: string; filename?: string }> {
  const parts = new Map<string, { value: string; filename?: string }>();
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType ?? '');
  if (!boundary) return parts;
  const delimiter = `--${boundary[1] ?? boundary[2]!.trim()}`;
  for (const raw of text.split(delimiter).slice(1)) {
    if (raw.startsWith('--')) break;
    const headerEnd = raw.indexOf('\r\n\r\n');
    if (headerEnd < 0) continue;
    const headers = raw.slice(0, headerEnd);
    const name = /name="([^"]*)"/i.exec(headers)?.[1];
    if (name === undefined) continue;
    const filename = /filename="([^"]*)"/i.exec(headers)?.[1];
    const value = raw.slice(headerEnd + 4).replace(/\r\n$/, '');
    parts.set(name, filename === undefined ? { value } : { value, filename });
  }
  return parts;
}
