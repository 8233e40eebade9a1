/**
 * A body held as the chunks it arrived in, searched as if it were one buffer: positions are
 * offsets into the whole, and a match may straddle chunks. For bodies of megabytes (embeddings)
 * that are checked at a few places and sent on as they are, without joining them.
 */
export class ByteChunks {
  /** Where each chunk starts in the whole. */
  private readonly starts: number[] = [];
  readonly length: number;

  constructor(readonly chunks: readonly Buffer[]) {
    let at = 0;
    for (const chunk of chunks) {
      this.starts.push(at);
      at += chunk.length;
    }
    this.length = at;
  }

  /** The chunk holding `pos` (the last chunk for `pos === length`). */
  chunkAt(pos: number): number {
    let low = 0;
    let high = this.chunks.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.starts[mid]! <= pos) low = mid;
      else high = mid - 1;
    }
    return low;
  }

  startOf(chunk: number): number {
    return this.starts[chunk]!;
  }

  byteAt(pos: number): number | undefined {
    if (pos < 0 || pos >= this.length) return undefined;
    const chunk = this.chunkAt(pos);
    return this.chunks[chunk]![pos - this.starts[chunk]!];
  }

  /** A copy of [start, end): for the few bytes looked at closely. */
  slice(start: number, end: number): Buffer {
    const parts: Buffer[] = [];
    for (let k = this.chunkAt(start); k < this.chunks.length && this.starts[k]! < end; k++) {
      const from = Math.max(start - this.starts[k]!, 0);
      parts.push(this.chunks[k]!.subarray(from, Math.min(end - this.starts[k]!, this.chunks[k]!.length)));
    }
    return Buffer.concat(parts);
  }

  indexOf(needle: Buffer | number, from = 0): number {
    if (from >= this.length) return -1;
    const firstChunk = this.chunkAt(from);
    for (let k = firstChunk; k < this.chunks.length; k++) {
      const at = this.chunks[k]!.indexOf(needle, k === firstChunk ? from - this.starts[k]! : 0);
      if (at >= 0) return this.starts[k]! + at;
      const across = typeof needle === 'number' ? -1 : this.straddling(k, needle, 'first');
      if (across >= 0 && across >= from) return across;
    }
    return -1;
  }

  lastIndexOf(needle: Buffer): number {
    for (let k = this.chunks.length - 1; k >= 0; k--) {
      // A match across the end of chunk k lies after any match inside it.
      const across = this.straddling(k, needle, 'last');
      if (across >= 0) return across;
      const at = this.chunks[k]!.lastIndexOf(needle);
      if (at >= 0) return this.starts[k]! + at;
    }
    return -1;
  }

  /** A match of `needle` that starts in chunk k and ends past it, or -1. */
  private straddling(k: number, needle: Buffer, which: 'first' | 'last'): number {
    if (needle.length < 2 || k + 1 >= this.chunks.length) return -1;
    const end = this.starts[k]! + this.chunks[k]!.length;
    const start = Math.max(this.starts[k]!, end - needle.length + 1);
    const window = this.slice(start, Math.min(this.length, end + needle.length - 1));
    const at = which === 'first' ? window.indexOf(needle) : window.lastIndexOf(needle);
    return at >= 0 && start + at < end ? start + at : -1;
  }

  /** The whole with [start, end) replaced by `bytes`: views of the chunks around it, nothing copied. */
  replaced(start: number, end: number, bytes: Buffer): Buffer[] {
    const first = this.chunkAt(start);
    const last = this.chunkAt(end);
    return [
      ...this.chunks.slice(0, first),
      this.chunks[first]!.subarray(0, start - this.starts[first]!),
      bytes,
      this.chunks[last]!.subarray(end - this.starts[last]!),
      ...this.chunks.slice(last + 1),
    ].filter((chunk) => chunk.length > 0);
  }
}
