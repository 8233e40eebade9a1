import { describe, expect, it } from 'vitest';
import { embeddingVector, vectorToBase64 } from '../../src/simulator/embedding-vectors.js';
import { renderWithVectors, vectorSlot } from '../../src/simulator/vector-pool.js';
import { countTokens, countTokensInTurns } from '../../src/simulator/text.js';

describe('the simulator vector pool (issue 44, item 7)', () => {
  it('renders the answer byte for byte as the event loop would have, floats and base64, texts and token ids', async () => {
    const inputs: Array<string | number[]> = ['The quick brown fox', 'Ωmega 中文 😀 data', '', [1, 2, 3], 'word '.repeat(500)];
    const template = { object: 'list', data: inputs.map((input, index) => ({ object: 'embedding', index, embedding: vectorSlot(input, 1536, index % 2 ? 'base64' : 'floats') })), model: 'm' };
    const expected = JSON.stringify({
      ...template,
      data: inputs.map((input, index) => {
        const vector = embeddingVector(input, 1536);
        return { object: 'embedding', index, embedding: index % 2 ? vectorToBase64(vector) : Array.from(vector) };
      }),
    });
    const answers = await Promise.all([renderWithVectors(template), renderWithVectors(template), renderWithVectors({ nested: [[vectorSlot('x', 8)]] })]);
    expect(answers[0]!.toString('utf8')).toBe(expected);
    expect(answers[1]!.toString('utf8')).toBe(expected);
    expect(JSON.parse(answers[2]!.toString('utf8'))).toEqual({ nested: [[Array.from(embeddingVector('x', 8))]] });
  });

  it('counts each input as countTokens does, giving the loop turns on long batches', async () => {
    const inputs = Array.from({ length: 300 }, (_, i) => `input ${i} `.repeat(20));
    // An immediate that re-arms itself runs only when the counting gives the loop a turn.
    let turns = 0;
    let counting = true;
    const observe = () => setImmediate(() => counting && (turns++, observe()));
    observe();
    const counts = await countTokensInTurns([...inputs, [5, 6]]);
    counting = false;
    expect(counts).toEqual([...inputs.map((input) => countTokens(input)), 2]);
    expect(turns).toBeGreaterThan(0);
  });
});
