import { parseSseText } from '../../../src/sse/parse.js';
import { TEST_KEY } from '../../helpers/gateway.js';

export interface RawStream {
  status: number;
  contentType: string | null;
  /** `data:` payloads in order; JSON parsed except `[DONE]`. */
  events: unknown[];
  text: string;
}

/** POSTs with raw fetch and parses the SSE body with the gateway's own parser (framing is asserted too). */
export async function postStream(gateway: { url: string }, path: string, body: unknown): Promise<RawStream> {
  const response = await fetch(gateway.url + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const events = (await parseSseText(text)).map((e) => (e.data === '[DONE]' ? '[DONE]' : (JSON.parse(e.data) as unknown)));
  return { status: response.status, contentType: response.headers.get('content-type'), events, text };
}
