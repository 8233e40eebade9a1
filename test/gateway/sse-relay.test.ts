import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseDecoder } from '../../src/sse/parse.js';
import { type SseEvent } from '../../src/contracts/sse-event.js';
import { SseRelay, formatEvents } from '../../src/sse/relay.js';
import type { StreamTranslator } from '../../src/contracts/translator.js';

/** A translator whose fast path answers exactly what its onEvent would: the relay must not change the output. */
function agreeingTranslator() {
  const calls = { plain: 0, events: 0 };
  const translator: StreamTranslator = {
    onPlainData(data) {
      if (data === 'decline') return undefined;
      calls.plain++;
      return `<${data}>`;
    },
    onEvent(event) {
      calls.events++;
      return [{ ...(event.event ? { event: event.event } : {}), data: `<${event.data}>` }];
    },
    onEnd: () => [],
    usage: () => undefined,
  };
  return { translator, calls };
}

/** What the full parser makes of the text, through onEvent alone. */
function reference(text: string): string {
  const decoder = new SseDecoder();
  const events: SseEvent[] = [...decoder.feed(text), ...decoder.end()];
  const { translator } = agreeingTranslator();
  return events.map((event) => formatEvents(translator.onEvent(event))).join('');
}

function relayText(bytes: Buffer, cuts: number[]) {
  const { translator, calls } = agreeingTranslator();
  const relay = new SseRelay(translator);
  let out = '';
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    out += relay.push(bytes.subarray(from, cut));
    from = cut;
  }
  return { out: out + relay.flush(), calls };
}

const utf8 = (text: string) => Buffer.from(text, 'utf8');

describe('SSE relay (issue 5: stream fast path)', () => {
  it('sends plain data events through the fast path, the rest through onEvent, in order', () => {
    const text = 'data: a\n\ndata:b\n\nevent: ping\ndata: c\n\n: comment\n\ndata: decline\n\ndata: l1\ndata: l2\n\n';
    const { out, calls } = relayText(utf8(text), []);
    expect(out).toBe('data: <a>\n\ndata: <b>\n\nevent: ping\ndata: <c>\n\ndata: <decline>\n\ndata: <l1\nl2>\n\n');
    expect(out).toBe(reference(text));
    expect(calls.plain).toBe(2);
  });

  it('holds an event split across reads until its blank line, even inside a multi-byte character', () => {
    const text = 'data: {"content":"héllo 世界 🙂"}\n\ndata: next\n\n';
    const bytes = utf8(text);
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(relayText(bytes, [cut]).out).toBe(reference(text));
    }
  });

  it('an event left without its closing blank line at the end still counts', () => {
    expect(relayText(utf8('data: a\n\ndata: last'), []).out).toBe('data: <a>\n\ndata: <last>\n\n');
  });

  it('CR line ends and a BOM go to the full parser for the rest of the stream', () => {
    const crlf = relayText(utf8('data: a\r\n\r\ndata: b\r\n\r\n'), [3]);
    expect(crlf.out).toBe('data: <a>\n\ndata: <b>\n\n');
    expect(crlf.calls.plain).toBe(0);
    const bom = relayText(utf8('\uFEFFdata: a\n\ndata: b\n\n'), []);
    expect(bom.out).toBe(reference('\uFEFFdata: a\n\ndata: b\n\n'));
    expect(bom.calls.plain).toBe(0);
  });

  it('matches the full parser for any SSE text split anywhere (property)', () => {
    // Whole characters only: a stream of UTF-8 bytes never carries half a surrogate pair.
    const value = fc.array(fc.constantFrom('a', 'z', '0', ' ', '{', '}', '"', ':', ',', 'é', '世', '🙂'), { maxLength: 12 }).map((chars) => chars.join(''));
    const block = fc.oneof(
      value.map((v) => `data: ${v}\n\n`),
      value.map((v) => `data:${v}\n\n`),
      fc.tuple(fc.constantFrom('ping', 'message_delta'), value).map(([e, v]) => `event: ${e}\ndata: ${v}\n\n`),
      fc.tuple(value, value).map(([a, b]) => `data: ${a}\ndata: ${b}\n\n`),
      value.map((v) => `: ${v}\n\n`),
      value.map((v) => `id: 7\ndata: ${v}\n\n`),
      value.map((v) => `data: ${v}\r\n\r\n`),
      fc.constant('\n'),
    );
    fc.assert(
      fc.property(fc.array(block, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 4 }), (blocks, rawCuts) => {
        const text = blocks.join('');
        const bytes = utf8(text);
        const cuts = [...new Set(rawCuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        expect(relayText(bytes, cuts).out).toBe(reference(text));
      }),
      { numRuns: 500 },
    );
  });
});
