import type { BatchEndpoint } from '../contracts/batch-line.js';
import { jsonlLines } from './input-lines.js';
import type { BatchError } from './batch.js';

/** OpenAI's limit of requests in one batch input file. */
export const MAX_BATCH_LINES = 50_000;
/** A file with more problems than this lists the first ones: enough to fix it, not a second copy of it. */
const MAX_ERRORS = 100;

/** One well-formed input line. */
export interface ValidLine {
  line: number;
  customId: string;
  model: string;
  body: Record<string, unknown>;
}

export interface ValidateOptions {
  endpoint: BatchEndpoint;
  /** Whether the gateway serves a model (its catalog). */
  isServed: (model: string) => boolean;
  /** Told each valid line as it is read (stored in chunks by the caller); not told once an error was found. */
  onLine: (line: ValidLine) => Promise<void> | void;
}

/**
 * Reads a batch input file line by line as OpenAI validates it: each line an object with a
 * unique `custom_id`, `method` POST, `url` equal to the batch's endpoint, and a `body` naming a
 * model the gateway serves; at most 50,000 lines, at least one. Answers the problems found
 * (empty: the file is valid), each with its 1-based line. Bodies are checked by the endpoint
 * itself when their line runs: a body it refuses becomes an error-file line.
 */
export async function validateInput(content: AsyncIterable<Uint8Array>, options: ValidateOptions): Promise<BatchError[]> {
  const errors: BatchError[] = [];
  const seen = new Set<string>();
  let count = 0;
  const problem = (code: string, message: string, line?: number, param?: string): void => {
    if (errors.length < MAX_ERRORS) errors.push({ code, message, line: line ?? null, param: param ?? null });
  };
  for await (const { line, text } of jsonlLines(content)) {
    count += 1;
    if (count > MAX_BATCH_LINES) {
      problem('too_many_requests', `The input file has more than the ${MAX_BATCH_LINES} requests a batch may hold.`, line);
      break;
    }
    const found = checkLine(line, text, options, seen);
    if ('code' in found) problem(found.code, found.message, line, found.param);
    else if (errors.length === 0) await options.onLine(found);
  }
  if (count === 0) problem('empty_file', 'The input file has no requests.');
  return errors;
}

function checkLine(line: number, text: string, options: ValidateOptions, seen: Set<string>): ValidLine | { code: string; message: string; param?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { code: 'invalid_json_line', message: `Line ${line} is not valid JSON.` };
  }
  if (!isObject(parsed)) return { code: 'invalid_json_line', message: `Line ${line} is not a JSON object.` };
  const { custom_id: customId, method, url, body } = parsed;
  if (typeof customId !== 'string' || customId === '') return { code: 'missing_custom_id', message: `Line ${line} has no custom_id.`, param: 'custom_id' };
  if (seen.has(customId)) return { code: 'duplicate_custom_id', message: `The custom_id '${customId}' on line ${line} is used by an earlier line; each request needs its own.`, param: 'custom_id' };
  seen.add(customId);
  if (method !== 'POST') return { code: 'invalid_method', message: `Line ${line}: method must be POST.`, param: 'method' };
  if (url !== options.endpoint) return { code: 'mismatched_url', message: `Line ${line}: url ${JSON.stringify(url)} is not the batch's endpoint ${options.endpoint}.`, param: 'url' };
  if (!isObject(body)) return { code: 'invalid_body', message: `Line ${line} has no body object.`, param: 'body' };
  if (body.stream === true) return { code: 'invalid_body', message: `Line ${line}: a batch request cannot stream.`, param: 'body.stream' };
  const model = body.model;
  if (typeof model !== 'string' || model === '') return { code: 'missing_model', message: `Line ${line} names no model.`, param: 'body.model' };
  if (!options.isServed(model)) return { code: 'model_not_found', message: `Line ${line}: the model '${model.slice(0, 200)}' does not exist.`, param: 'body.model' };
  return { line, customId, model, body };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
