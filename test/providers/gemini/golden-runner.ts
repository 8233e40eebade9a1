import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { renderError } from '../../../src/api/envelopes.js';
import type { TranslatorPair } from '../../../src/contracts/translator.js';
import { goldenContext, parseGoldenStream, runStream, type GoldenCase } from '../../helpers/golden.js';

/** Rewrites a golden file when UPDATE_GOLDEN=1 (STYLE.md §9); otherwise compares. */
function expectGolden(golden: GoldenCase, file: string, actual: unknown): void {
  if (process.env.UPDATE_GOLDEN === '1') {
    writeFileSync(join(golden.dir, file), JSON.stringify(actual, null, 2) + '\n');
    return;
  }
  expect(actual).toEqual(golden.json(file));
}

/** Runs one gemini golden case through a pure translator pair; `toRequest` builds the pair's input. */
export async function runGeminiCase<Req>(golden: GoldenCase, pair: TranslatorPair<Req, unknown>, toRequest: (body: unknown) => Req): Promise<void> {
  const ctx = goldenContext(golden.meta.context);
  if (golden.has('upstream-request.json')) {
    const call = pair.toUpstream(toRequest(golden.json('client-request.json')), ctx);
    expectGolden(golden, 'upstream-request.json', { method: call.method, path: call.path, ...(call.query ? { query: call.query } : {}), body: call.body });
  }
  if (golden.has('client-response.json')) {
    const { body, usage } = pair.fromUpstream(golden.json('upstream-response.json'), ctx);
    expectGolden(golden, 'client-response.json', body);
    expectGolden(golden, 'usage.json', usage);
  }
  if (golden.has('client-stream.sse')) {
    const translator = pair.createStreamTranslator(ctx);
    expect(await runStream(translator, golden.text('upstream-stream.sse')!)).toEqual(await parseGoldenStream(golden.text('client-stream.sse')!));
    expectGolden(golden, 'usage.json', translator.usage());
  }
  if (golden.has('client-error.json')) {
    const expected = golden.json('client-error.json') as { status: number; code: string; grpcStatus: string; messageContains?: string };
    const error = pair.fromUpstreamError(golden.meta.status!, golden.json('upstream-response.json'));
    expect({ status: error.status, code: error.code, grpcStatus: error.kind.grpcStatus }).toEqual({ status: expected.status, code: expected.code, grpcStatus: expected.grpcStatus });
    if (expected.messageContains) expect(error.message).toContain(expected.messageContains);
    // The google envelope carries no upstream details (project numbers, ErrorInfo, reasons).
    expect(JSON.stringify(renderError('google', error))).not.toMatch(/projects\/|googleapis\.com|ErrorInfo|API_KEY_INVALID/);
  }
}
