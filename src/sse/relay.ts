import { StringDecoder } from 'node:string_decoder';
import type { StreamTranslator } from '../contracts/translator.js';
import { SseDecoder } from './parse.js';
import { type SseEvent } from '../contracts/sse-event.js';
import { formatSse } from './write.js';
import { type OutEvent } from '../contracts/sse-event.js';

const BLANK_LINE = '\n\n';

/**
 * Turns an upstream SSE stream into the client's SSE text, read by read, through a stream
 * translator. Plain events — one `data:` line, LF line ends, which is what every vendor sends —
 * are cut out of the text directly and offered to the translator's `onPlainData` fast path, so a
 * same-protocol stream costs a string rewrite per event instead of an event object, a parse and
 * a re-serialisation. Everything else (CR line ends, a BOM, comments, `event:`/`id:` fields,
 * multi-line data) goes through the full SSE parser, which sees exactly those events: a block cut
 * at a blank line is complete, so the parser is never left holding part of one.
 */
export class SseRelay {
  /** Text after the last blank line: the start of an event still arriving. */
  private carry = '';
  /** Once the upstream uses CR line ends or a BOM, every read goes to the parser. */
  private parserOnly = false;
  private readonly bytes = new StringDecoder('utf8');
  /** Made on first need: a stream of plain events never needs it. */
  private fullParser: SseDecoder | undefined;
  /**
   * What the translator threw (an upstream error event, a malformed chunk), if it did. The read
   * that met it still returns the text of every event before it — what the client sees must not
   * depend on how the upstream's bytes were split into reads (issue 14) — and later reads
   * translate nothing; the caller raises this once that text is sent.
   */
  failure: unknown = undefined;

  constructor(private readonly translator: StreamTranslator) {}

  private get parser(): SseDecoder {
    return (this.fullParser ??= new SseDecoder());
  }

  /** The client text for one upstream read: '' when the read completed no event. */
  push(chunk: Buffer): string {
    if (this.failure !== undefined) return '';
    const text = this.bytes.write(chunk);
    if (this.parserOnly) return this.translateEvents(this.parser.feed(text));
    const pending = this.carry + text;
    if (pending.includes('\r') || pending.charCodeAt(0) === 0xfeff) {
      this.parserOnly = true;
      this.carry = '';
      return this.translateEvents(this.parser.feed(pending));
    }
    const cut = pending.lastIndexOf(BLANK_LINE);
    if (cut < 0) {
      this.carry = pending;
      return '';
    }
    this.carry = pending.slice(cut + BLANK_LINE.length);
    return this.translateBlocks(pending, cut);
  }

  /** The upstream ended: the client text of an event it left without its closing blank line. */
  flush(): string {
    if (this.failure !== undefined) return '';
    const rest = this.carry + this.bytes.end();
    this.carry = '';
    if (rest === '' && !this.fullParser) return '';
    const events = this.parser.feed(rest);
    return this.translateEvents(events.length > 0 ? [...events, ...this.parser.end()] : this.parser.end());
  }

  /** The complete events in `text` up to `end` (where a blank line starts), in order. */
  private translateBlocks(text: string, end: number): string {
    let out = '';
    try {
      for (let start = 0; start <= end && this.failure === undefined; ) {
        let stop = text.indexOf(BLANK_LINE, start);
        if (stop < 0 || stop > end) stop = end;
        if (stop > start) out += this.translateBlock(text, start, stop);
        start = stop + BLANK_LINE.length;
      }
    } catch (error) {
      this.failure = error;
    }
    return out;
  }

  /** One event, `text` from `start` to `stop`; a plain one is sliced once, straight to its data. */
  private translateBlock(text: string, start: number, stop: number): string {
    if (text.startsWith('data:', start)) {
      const lineEnd = text.indexOf('\n', start);
      if (lineEnd < 0 || lineEnd >= stop) {
        const data = text.slice(text.charCodeAt(start + 5) === 0x20 ? start + 6 : start + 5, stop);
        const fast = this.translator.onPlainData?.(data);
        if (fast !== undefined) return `data: ${fast}\n\n`;
        return formatEvents(this.translator.onEvent({ data }));
      }
    }
    return this.translateEvents(this.parser.feed(text.slice(start, stop) + BLANK_LINE));
  }

  private translateEvents(events: readonly SseEvent[]): string {
    let out = '';
    try {
      for (const event of events) out += formatEvents(this.translator.onEvent(event));
    } catch (error) {
      this.failure = error;
    }
    return out;
  }
}

/** Client events as SSE text. */
export function formatEvents(events: readonly OutEvent[]): string {
  let text = '';
  for (const event of events) text += formatSse(event);
  return text;
}
