import { expect } from 'vitest';
import type { OpenAIResponsesRequest, ResponsesTranslatorPair } from '../../src/protocols/openai-responses/types.js';
import { goldenContext, parseGoldenStream, runStream, type GoldenCase } from './golden.js';

/** Runs one responses golden case (STYLE.md §9) through a pure responses pair. */
export async function checkResponsesGoldenCase(pair: ResponsesTranslatorPair, golden: GoldenCase): Promise<void> {
  const ctx = goldenContext(golden.meta.context);
  const call = pair.toUpstream(golden.json('client-request.json') as OpenAIResponsesRequest, ctx);
  expect({ method: call.method, path: call.path, body: call.body }).toEqual(golden.json('upstream-request.json'));
  if (golden.has('client-response.json')) {
    const { body, usage } = pair.fromUpstream(golden.json('upstream-response.json'), ctx);
    expect(body).toEqual(golden.json('client-response.json'));
    expect(usage).toEqual(golden.json('usage.json'));
  }
  if (golden.has('client-stream.sse')) {
    const translator = pair.createStreamTranslator(ctx);
    expect(await runStream(translator, golden.text('upstream-stream.sse')!)).toEqual(await parseGoldenStream(golden.text('client-stream.sse')!));
    expect(translator.usage()).toEqual(golden.json('usage.json'));
  }
}

/** The stream's events as parsed payloads, for assertions on types and numbering. */
export const payloads = (events: Array<{ data: unknown }>) => events.map((e) => e.data as { type: string; sequence_number: number; [key: string]: unknown });
