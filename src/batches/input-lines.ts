/**
 * The lines of a JSONL file read as it streams in (a file of 200 MB is never held whole): each
 * line with its 1-based number, `\r\n` or `\n` ended, UTF-8 decoded across chunk boundaries.
 * Blank lines are skipped but counted, so numbers match what an editor shows.
 */
export async function* jsonlLines(content: AsyncIterable<Uint8Array>): AsyncGenerator<{ line: number; text: string }> {
  const decoder = new TextDecoder('utf-8');
  let pending = '';
  let line = 0;
  for await (const chunk of content) {
    pending += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = pending.indexOf('\n')) >= 0) {
      const text = pending.slice(0, end).replace(/\r$/, '');
      pending = pending.slice(end + 1);
      line += 1;
      if (text.trim() !== '') yield { line, text };
    }
  }
  pending += decoder.decode();
  if (pending.trim() !== '') yield { line: line + 1, text: pending.replace(/\r$/, '') };
}
