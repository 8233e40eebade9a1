import { describe, expect, it } from 'vitest';
import { serializeInTurns } from '../../src/gateway/serialize-in-turns.js';

const big = (unit: string, chars: number) => unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);

describe('serializeInTurns (issue 13, the event-loop watchdog)', () => {
  it('writes exactly what JSON.stringify writes, long strings included, and leaves the object as it was', async () => {
    const shared = { text: big('shared ', 700_000) };
    const value = {
      model: 'delta-4.1',
      messages: [
        { role: 'user', content: big('a', 3_000_000) },
        { role: 'user', content: [{ type: 'text', text: big('"quotes"\\ and \n new lines \u0000 ', 1_200_000) }] },
        shared,
        shared,
      ],
      list: [big('中文', 600_000), 1, null, true, 'short'],
      nested: { deeper: { deepest: big('x', 524_289) } },
    };
    const before = JSON.stringify(value);
    const out = await serializeInTurns(value);
    expect(out).toBe(before);
    expect(JSON.stringify(value)).toBe(before);
  });

  it('never splits a surrogate pair at a slice boundary (an emoji stays one character, not two escapes)', async () => {
    for (const offset of [0, 1]) {
      const text = 'a'.repeat(512 * 1024 - 1 + offset) + '😀'.repeat(300_000);
      const out = await serializeInTurns({ text });
      expect(out).toBe(JSON.stringify({ text }));
      expect(JSON.parse(out).text).toBe(text);
    }
  });

  it('lets other work run between slices', async () => {
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    await serializeInTurns({ text: big('a', 6_000_000) });
    clearInterval(ticker);
    expect(turns).toBeGreaterThan(0);
  });
});
