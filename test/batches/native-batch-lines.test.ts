import { describe, expect, it } from 'vitest';
import { jsonLinesOf } from '../../src/batches/native-batch-lines.js';

async function* chunks(...parts: Buffer[]): AsyncGenerator<Buffer> {
  for (const part of parts) yield part;
}

async function all(source: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const value of source) out.push(value);
  return out;
}

describe('reading a result file line by line (issue 46)', () => {
  it('joins lines and characters split across reads, skips blank lines, reads a last line without a newline', async () => {
    const text = Buffer.from('{"a":"é"}\n\n{"b":2}\r\n{"c":"日本"}', 'utf8');
    // Split inside the two-byte é and the three-byte 日.
    const cut1 = text.indexOf(Buffer.from('é')) + 1;
    const cut2 = text.indexOf(Buffer.from('日')) + 2;
    expect(await all(jsonLinesOf(chunks(text.subarray(0, cut1), text.subarray(cut1, cut2), text.subarray(cut2))))).toEqual([{ a: 'é' }, { b: 2 }, { c: '日本' }]);
  });

  it('a line that is not JSON is the upstream\'s fault', async () => {
    await expect(all(jsonLinesOf(chunks(Buffer.from('{"ok":1}\nnot json\n'))))).rejects.toMatchObject({ code: 'GW_UPSTREAM_BAD_RESPONSE' });
  });
});
