import { StringDecoder } from 'node:string_decoder';
import { GatewayError } from '../errors.js';

/**
 * The JSON values of a JSONL body, read chunk by chunk: a result file of any size is never held
 * whole, only the line being read. Blank lines are skipped; a line that is not JSON is an upstream
 * fault (GW_UPSTREAM_BAD_RESPONSE).
 */
export async function* jsonLinesOf(chunks: AsyncIterable<Buffer>): AsyncGenerator<unknown> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  for await (const chunk of chunks) {
    rest += decoder.write(chunk);
    let start = 0;
    for (let end = rest.indexOf('\n'); end >= 0; end = rest.indexOf('\n', start)) {
      const line = rest.slice(start, end);
      start = end + 1;
      if (line.trim() !== '') yield parseLine(line);
    }
    rest = rest.slice(start);
  }
  rest += decoder.end();
  if (rest.trim() !== '') yield parseLine(rest);
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch (error) {
    throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'An upstream batch result file holds a line that is not JSON', { cause: error });
  }
}
