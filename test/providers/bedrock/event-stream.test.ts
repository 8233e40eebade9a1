import { describe, expect, it } from 'vitest';
import { createEventStreamDecoder } from '../../../src/providers/bedrock/event-stream.js';
import { chunkFrame, eventFrame, exceptionFrame } from '../../../src/providers/bedrock/simulator-frames.js';
import { parseSseText } from '../../../src/sse/parse.js';

const STREAM = Buffer.concat([
  eventFrame('messageStart', { role: 'assistant' }),
  eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'héllo\nwörld' } }),
  chunkFrame({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } }),
  exceptionFrame('modelStreamErrorException', 'The model failed'),
]);

/** Decodes `bytes` fed in pieces of `size` bytes. */
function decodeInPieces(bytes: Buffer, size: number): string {
  const decoder = createEventStreamDecoder();
  let text = '';
  for (let at = 0; at < bytes.length; at += size) text += decoder.push(bytes.subarray(at, at + size)).toString('utf8');
  decoder.end();
  return text;
}

/** Bedrock's binary event stream as SSE events (clouds.md §2 "Binary framing"). */
describe('Bedrock event-stream decoder', () => {
  it('names events by :event-type, unwraps InvokeModel chunks and turns exceptions into one named event', async () => {
    const events = await parseSseText(decodeInPieces(STREAM, STREAM.length));
    expect(events.map((e) => [e.event, JSON.parse(e.data)])).toEqual([
      ['messageStart', { role: 'assistant' }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'héllo\nwörld' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } }],
      ['exception', { message: 'The model failed', __type: 'modelStreamErrorException' }],
    ]);
  });

  it('gives the same text however the bytes are split into reads (multi-byte characters and headers cut included)', () => {
    const whole = decodeInPieces(STREAM, STREAM.length);
    for (const size of [1, 2, 3, 5, 13, 64]) expect(decodeInPieces(STREAM, size)).toBe(whole);
  });

  it('refuses a message whose CRC does not match, and a stream that ends inside a message', () => {
    const bad = Buffer.from(STREAM);
    bad[20]! ^= 0xff;
    expect(() => decodeInPieces(bad, bad.length)).toThrow(/corrupt event-stream message/);
    const cut = STREAM.subarray(0, STREAM.length - 3);
    expect(() => decodeInPieces(cut, 7)).toThrow(/ended inside an event/);
  });
});
