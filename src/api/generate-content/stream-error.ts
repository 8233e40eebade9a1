import type { GatewayError } from '../../errors.js';
import type { OutEvent } from '../../contracts/sse-event.js';
import { renderGoogleError } from './errors.js';

/**
 * A native stream that fails after its first byte ends with one `data:` event holding the
 * google error body `{error:{code,message,status}}`, the shape Gemini itself uses mid-stream.
 */
export const renderGoogleStreamError = (error: GatewayError): OutEvent[] => [{ data: renderGoogleError(error) }];

/** The text parts (thoughts included) of one GenerateContentResponse chunk. */
export function generateContentChunkText(out: OutEvent): string {
  const chunk = out.data as { candidates?: Array<{ content?: { parts?: Array<{ text?: unknown }> } }> };
  let text = '';
  for (const candidate of (typeof chunk === 'object' && chunk.candidates) || []) {
    for (const part of candidate.content?.parts ?? []) if (typeof part.text === 'string') text += part.text;
  }
  return text;
}
