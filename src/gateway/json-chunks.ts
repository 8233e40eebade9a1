import { Readable } from 'node:stream';

/**
 * A JSON answer as the buffers it is made of (an upstream's chunks, a name replaced between them),
 * sent as a stream of them with its length known, never joined: an embeddings answer of megabytes
 * costs the gateway no copy (providers/openai-compatible/embeddings-chunks.ts). The cache and body
 * logging, which keep text, ask for it.
 */
export class JsonChunks extends Readable {
  readonly byteLength: number;
  private next = 0;

  constructor(readonly chunks: readonly Buffer[]) {
    super();
    let length = 0;
    for (const chunk of chunks) length += chunk.length;
    this.byteLength = length;
  }

  override _read(): void {
    while (this.next < this.chunks.length) {
      if (!this.push(this.chunks[this.next++])) return;
    }
    this.push(null);
  }

  /** The whole answer as text (a copy: only where text is kept). */
  text(): string {
    return Buffer.concat(this.chunks as Buffer[], this.byteLength).toString('utf8');
  }
}
