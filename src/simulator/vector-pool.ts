import { Worker } from 'node:worker_threads';
import { embeddingVector, hashWord, POSITIONS_PER_WORD, vectorToBase64, wordsOf } from './embedding-vectors.js';

/**
 * A vector in a simulated answer, rendered off the event loop (issue 44): the text (or token ids)
 * it embeds, its length, and how it is written: a JSON array of floats, or OpenAI's base64 of
 * little-endian float32.
 */
export interface VectorSlot {
  readonly simVector: readonly [input: string | readonly number[], dimensions: number, as: 'floats' | 'base64'];
}

export const vectorSlot = (input: string | readonly number[], dimensions: number, as: 'floats' | 'base64' = 'floats'): VectorSlot => ({ simVector: [input, dimensions, as] });

/**
 * The simulators serve in the gateway's own process: three calls of 2,048 inputs each spent seconds
 * of the event loop on vectors and on writing 3 million floats as JSON, and another key's chat
 * went from 9/466 ms (p50/p99) to 602/3,967 ms. The workers compute the vectors and the whole JSON
 * answer; the loop only hands the template over and writes the bytes back. The vector code is the
 * one of embedding-vectors.ts, its functions' own source, so the answers stay byte-identical.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const POSITIONS_PER_WORD = ${POSITIONS_PER_WORD};
${hashWord.toString()}
${wordsOf.toString()}
${embeddingVector.toString()}
${vectorToBase64.toString()}
function fill(value) {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value.simVector)) {
    const [input, dimensions, as] = value.simVector;
    const vector = embeddingVector(input, dimensions);
    return as === 'base64' ? vectorToBase64(vector) : Array.from(vector);
  }
  if (Array.isArray(value)) return value.map(fill);
  const out = {};
  for (const key of Object.keys(value)) out[key] = fill(value[key]);
  return out;
}
parentPort.on('message', ({ id, body }) => {
  try {
    const bytes = new TextEncoder().encode(JSON.stringify(fill(body)));
    parentPort.postMessage({ id, bytes }, [bytes.buffer]);
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
`;

/** Two threads: enough that parallel embedding calls overlap, few enough to leave the machine's cores to the gateway. */
const POOL_SIZE = 2;

interface Pending {
  resolve: (bytes: Buffer) => void;
  reject: (error: Error) => void;
}

interface PoolWorker {
  worker: Worker;
  pending: Map<number, Pending>;
}

/** Started at the first embedding answer, shared by every simulator of the process; idle threads never hold the process open. */
let pool: PoolWorker[] | undefined;
let nextId = 0;

function spawn(): PoolWorker {
  const worker = new Worker(WORKER_SOURCE, { eval: true });
  worker.unref();
  const entry: PoolWorker = { worker, pending: new Map() };
  worker.on('message', ({ id, bytes, error }: { id: number; bytes?: Uint8Array; error?: string }) => {
    const pending = entry.pending.get(id);
    if (!pending) return;
    entry.pending.delete(id);
    if (entry.pending.size === 0) worker.unref();
    if (error !== undefined) pending.reject(new Error(error));
    else pending.resolve(Buffer.from(bytes!.buffer, bytes!.byteOffset, bytes!.byteLength));
  });
  const fail = (error: Error) => {
    for (const pending of entry.pending.values()) pending.reject(error);
    entry.pending.clear();
    // A thread that died (it should not) is replaced, so later answers still have somewhere to go.
    if (pool) pool = pool.map((other) => (other === entry ? spawn() : other));
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the simulator's vector worker stopped (${code})`)));
  return entry;
}

/** `body` as JSON bytes, each VectorSlot in it replaced by its vector; computed in the pool. */
export function renderWithVectors(body: unknown): Promise<Buffer> {
  pool ??= Array.from({ length: POOL_SIZE }, spawn);
  const entry = pool.reduce((best, other) => (other.pending.size < best.pending.size ? other : best));
  const id = ++nextId;
  return new Promise((resolve, reject) => {
    entry.pending.set(id, { resolve, reject });
    entry.worker.ref();
    entry.worker.postMessage({ id, body });
  });
}
