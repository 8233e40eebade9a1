import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';
import { admin } from '../helpers/admin.js';

/**
 * Issue 33: a client that leaves in the middle of a stream was logged as `upstream_error`, blaming
 * the channel for the client's hang-up. Its request log entry says `client_closed`, and the
 * channel's circuit is not charged for it.
 */
describe('a client that aborts a stream is client_closed (issue 33)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      // A slow stream: the client has time to read a few chunks and leave.
      file: { channels: [{ name: 'slow-openai', vendor: 'openai', simulator: { tokens_per_second: 40 }, models: { 'delta-4.1': 'gpt-4.1' }, max_retries: 0 }] },
    });
  });
  afterAll(() => gateway.stop());

  const entryOf = async (requestId: string) => {
    for (let tries = 0; tries < 100; tries++) {
      const [entry] = (await admin(gateway, 'GET', `/requests?request_id=${requestId}`)).json.data;
      if (entry) return entry;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no request log entry for ${requestId}`);
  };

  it('the openai SDK aborting after its first chunks leaves a client_closed entry, not upstream_error', async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create(
      { model: 'delta-4.1', messages: [{ role: 'user', content: 'Write a long story about a lighthouse keeper.' }], max_tokens: 2000, stream: true },
      { headers: { 'x-request-id': 'leaves-mid-stream' } },
    );
    let chunks = 0;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) chunks++;
      if (chunks === 3) {
        stream.controller.abort();
        break;
      }
    }
    expect(chunks).toBe(3);

    const entry = await entryOf('leaves-mid-stream');
    expect(entry.error_code).toBe('client_closed');
    expect(entry.status).toBe(200);
    // The hang-up is not the channel's failure.
    expect(gateway.deps.circuits.isOpen('slow-openai')).toBe(false);
    // What was relayed before the client left is billed.
    expect(entry.completion_tokens).toBeGreaterThan(0);
  });
});
