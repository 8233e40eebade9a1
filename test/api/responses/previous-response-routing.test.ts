import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/services.js';
import { startStoringResponsesVendor, type StoringResponsesVendor } from '../../helpers/storing-responses-vendor.js';

/** A Responses model (the beta family), served here by two OpenAI accounts. */
const MODEL = 'beta-seed-2.0-pro';

/**
 * Issue 33: two OpenAI accounts behind one model, each knowing only the responses it stored. A
 * follow-up naming `previous_response_id` must reach the account that stored it, whichever of two
 * instances (one PostgreSQL database) takes it; an id the gateway never saw is a clear 400.
 */
describe('previous_response_id goes to the channel that stored the response (issue 33)', () => {
  let database: TestDatabase;
  let vendors: StoringResponsesVendor[];
  let instances: TestGateway[];
  let clients: OpenAI[];

  beforeAll(async () => {
    database = await createTestDatabase();
    vendors = [await startStoringResponsesVendor(), await startStoringResponsesVendor()];
    const file = {
      channels: vendors.map((vendor, i) => ({ name: `account-${i}`, vendor: 'openai' as const, base_url: `${vendor.url}/v1`, responses: 'native' as const, api_key: 'k', models: { [MODEL]: 'gpt-5' }, max_retries: 0 })),
    };
    instances = [await startTestGateway({ file, env: { databaseUrl: database.url } }), await startTestGateway({ file, env: { databaseUrl: database.url } })];
    clients = instances.map((gateway) => new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 }));
  });
  afterAll(async () => {
    await Promise.all(instances.map((gateway) => gateway.stop()));
    await Promise.all(vendors.map((vendor) => vendor.close()));
    await database.drop();
  });

  it('answers every follow-up, JSON and streamed, on either instance', async () => {
    for (let i = 0; i < 10; i++) {
      const first = await clients[0]!.responses.create({ model: MODEL, input: `question ${i}` });
      expect(vendors.some((vendor) => vendor.stored.has(first.id))).toBe(true);
      const next = await clients[1]!.responses.create({ model: MODEL, input: `and then ${i}?`, previous_response_id: first.id });
      expect(next.output_text).toBe(`continuing ${first.id}`);
      // Streamed: the id is known from the first event, before the stream is relayed.
      const stream = await clients[i % 2]!.responses.create({ model: MODEL, input: 'more', previous_response_id: next.id, stream: true });
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of stream) if (event.type === 'response.completed') completed = event.response;
      expect(completed?.output_text ?? completed?.output.map((item) => (item.type === 'message' ? item.content.map((c) => (c.type === 'output_text' ? c.text : '')).join('') : '')).join('')).toBe(`continuing ${next.id}`);
      const last = await clients[(i + 1) % 2]!.responses.create({ model: MODEL, input: 'last', previous_response_id: completed!.id });
      expect(last.output_text).toBe(`continuing ${completed!.id}`);
    }
    // Both accounts served conversations: the test routes across them, not onto one.
    expect(vendors.every((vendor) => vendor.stored.size > 0)).toBe(true);
  });

  it('refuses an id it never saw, and one made with store: false, with a 400 naming the parameter', async () => {
    const unknown = await clients[0]!.responses.create({ model: MODEL, input: 'x', previous_response_id: 'resp_never_made' }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(OpenAI.BadRequestError);
    // The spec's general envelope: our code, a message that names the id and what to do.
    expect((unknown as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('invalid_parameter');
    expect((unknown as Error).message).toMatch(/Previous response 'resp_never_made' is not known/);

    const unstored = await clients[0]!.responses.create({ model: MODEL, input: 'x', store: false });
    const refused = await clients[1]!.responses.create({ model: MODEL, input: 'y', previous_response_id: unstored.id }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
  });
});
