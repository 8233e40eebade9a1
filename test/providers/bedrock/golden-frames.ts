import { chunkFrame, eventFrame, exceptionFrame } from '../../../src/providers/bedrock/simulator-frames.js';
import type { GoldenCase } from '../../helpers/golden.js';

/**
 * A golden case's `upstream-frames.jsonl`: Bedrock's binary event stream (clouds.md §2 "Binary
 * framing"), one message a line, encoded to real frames (one read each) for the pair's decoder:
 *   {"event": "<:event-type>", "payload": {...}}    a ConverseStream event
 *   {"chunk": {...}}                                 InvokeModelWithResponseStream's wrapped model event
 *   {"exception": "<:exception-type>", "message"}   a modeled exception
 */
export function bedrockFrames(golden: GoldenCase): Buffer[] | undefined {
  const text = golden.text('upstream-frames.jsonl');
  if (text === undefined) return undefined;
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const message = JSON.parse(line) as { event: string; payload: unknown } | { chunk: unknown } | { exception: string; message: string };
      if ('chunk' in message) return chunkFrame(message.chunk);
      if ('exception' in message) return exceptionFrame(message.exception, message.message);
      return eventFrame(message.event, message.payload);
    });
}
