import type { StreamBytesDecoder } from '../contracts/translator.js';
import { GatewayError } from '../errors.js';

/** Above this many unread bytes the upstream socket is paused until the reader catches up. */
const HIGH_WATER_BYTES = 64 * 1024;

/** The part of undici's DispatchController a body drives: flow control and cancelling. */
export interface FlowControl {
  pause(): void;
  resume(): void;
  abort(reason: Error): void;
}

/**
 * An upstream response body, fed by undici's dispatch callbacks and read either whole (`text`,
 * `json`) or read by read (`read` + `readable`, or async iteration). Everything that arrived
 * between two reads comes out as one buffer, so a stream costs one step per socket read, and no
 * promise is made while data is already waiting. Unread data above HIGH_WATER_BYTES pauses the
 * upstream socket: a slow reader slows the upstream instead of growing the gateway's memory.
 */
export class UpstreamBody implements AsyncIterable<Buffer> {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private ended = false;
  private failure: Error | undefined;
  private discarded = false;
  private paused = false;
  private wake: (() => void) | undefined;
  /** Non-SSE streams (decodeWith): each read comes out as the SSE text of its complete frames. */
  private decoder: StreamBytesDecoder | undefined;

  constructor(
    private readonly flow: FlowControl,
    /** Most bytes `text`, `json` and `allChunks` gather: past it the exchange is aborted (streamed reads are not counted). */
    private readonly maxWholeBytes = Number.POSITIVE_INFINITY,
  ) {}

  /**
   * Reads from now on come out through `decoder` (a binary event stream as SSE text); a read that
   * completes no frame is an empty buffer. The end of the body checks that no frame was left open.
   */
  decodeWith(decoder: StreamBytesDecoder): void {
    this.decoder = decoder;
  }

  /** From the dispatch handler: a chunk arrived. */
  push(chunk: Buffer): void {
    if (this.discarded) return;
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    if (this.bytes >= HIGH_WATER_BYTES && !this.paused) {
      this.paused = true;
      this.flow.pause();
    }
    this.notify();
  }

  /** From the dispatch handler: the body is complete. */
  end(): void {
    this.ended = true;
    this.notify();
  }

  /** From the dispatch handler: the exchange failed after the headers (reset, timeout, abort). */
  fail(error: Error): void {
    this.failure ??= error;
    this.notify();
  }

  /** True once everything was read, or the body failed or was destroyed. */
  get finished(): boolean {
    return this.chunks.length === 0 && (this.ended || this.failure !== undefined || this.discarded);
  }

  /**
   * Everything that arrived since the last read, or null when nothing is waiting (then
   * `finished` says whether more can come). Throws the failure once the data before it is read.
   */
  read(): Buffer | null {
    const taken = this.take();
    if (!taken) return null;
    const out = taken.length === 1 ? taken[0]! : Buffer.concat(taken);
    return this.decoder ? this.decoder.push(out) : out;
  }

  /** The chunks waiting, as they came; a read's bookkeeping (the failure, the decoder's end, resuming the socket). */
  private take(): Buffer[] | null {
    if (this.chunks.length === 0) {
      if (this.failure && !this.discarded) throw this.failure;
      if (this.decoder && this.ended && !this.discarded) {
        const decoder = this.decoder;
        this.decoder = undefined;
        decoder.end();
      }
      return null;
    }
    const taken = this.chunks;
    this.chunks = [];
    this.bytes = 0;
    if (this.paused) {
      this.paused = false;
      this.flow.resume();
    }
    return taken;
  }

  /** Resolves when `read` has something to return or the body is over; undefined if it already has. */
  readable(): Promise<void> | undefined {
    if (this.chunks.length > 0 || this.ended || this.failure || this.discarded) return undefined;
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  async text(): Promise<string> {
    const chunks = await this.allChunks();
    return (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8');
  }

  /**
   * The whole body as the chunks it arrived in, uncopied: a body of megabytes is handled without
   * joining it (embeddings). They may be views of the connection's read buffers: not to be edited.
   */
  async allChunks(limit = this.maxWholeBytes): Promise<Buffer[]> {
    const parts: Buffer[] = [];
    let bytes = 0;
    for (;;) {
      const taken = this.decoder ? this.read() : this.take();
      if (Buffer.isBuffer(taken)) parts.push(taken);
      else if (taken) for (const chunk of taken) parts.push(chunk);
      else if (this.finished) break;
      else await this.readable();
      if (taken) {
        bytes += Buffer.isBuffer(taken) ? taken.length : taken.reduce((sum, chunk) => sum + chunk.length, 0);
        if (bytes > limit) {
          this.destroy();
          throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', `The upstream provider's answer was larger than ${limit} bytes`);
        }
      }
    }
    return parts;
  }

  /** At most the first `limit` bytes, as text; the rest is not read (the exchange is aborted). */
  async head(limit: number): Promise<string> {
    const parts: Buffer[] = [];
    let bytes = 0;
    while (bytes < limit) {
      const taken = this.read();
      if (taken) {
        parts.push(taken);
        bytes += taken.length;
      } else if (this.finished) break;
      else await this.readable();
    }
    if (!this.finished) this.destroy();
    return Buffer.concat(parts).subarray(0, limit).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  /** Stops reading: an unfinished upstream exchange is aborted, and waiting data is dropped. */
  destroy(): void {
    if (this.discarded) return;
    this.discarded = true;
    this.chunks = [];
    this.bytes = 0;
    if (!this.ended && !this.failure) this.flow.abort(new Error('The gateway stopped reading the upstream body'));
    this.notify();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    for (;;) {
      const chunk = this.read();
      if (chunk) yield chunk;
      else if (this.finished) return;
      else await this.readable();
    }
  }

  private notify(): void {
    const wake = this.wake;
    if (wake) {
      this.wake = undefined;
      wake();
    }
  }
}
