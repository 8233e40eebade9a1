import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import { isGatewayError } from '../../src/errors.js';
import { renderChatStreamError } from '../../src/api/chat-completions/stream-error.js';
import { join } from 'node:path';
import { parseSseText } from '../../src/sse/parse.js';
import { formatSse } from '../../src/sse/write.js';
import { type OutEvent } from '../../src/contracts/sse-event.js';
import type { StreamTranslator, TranslateContext } from '../../src/contracts/translator.js';

export const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

/** One golden case folder (STYLE.md §9); absent files are undefined. */
export interface GoldenCase {
  name: string;
  dir: string;
  meta: { description: string; source: string; family?: string; context?: Partial<TranslateContext>; status?: number };
  json(file: string): unknown;
  text(file: string): string | undefined;
  has(file: string): boolean;
}

export function loadCases(vendor: string, filter: (name: string) => boolean = () => true): GoldenCase[] {
  const root = join(FIXTURES, vendor);
  return readdirSync(root)
    .filter(filter)
    .sort()
    .map((name) => {
      const dir = join(root, name);
      const read = (file: string) => (existsSync(join(dir, file)) ? readFileSync(join(dir, file), 'utf8') : undefined);
      return {
        name,
        dir,
        meta: JSON.parse(read('case.json')!) as GoldenCase['meta'],
        json: (file: string) => {
          const text = read(file);
          return text === undefined ? undefined : (JSON.parse(text) as unknown);
        },
        text: read,
        has: (file: string) => existsSync(join(dir, file)),
      };
    });
}

export const goldenContext = (overrides: Partial<TranslateContext> = {}): TranslateContext => ({
  model: 'public-model',
  upstreamModel: 'upstream-model',
  requestId: 'req_golden',
  now: 1_700_000_000,
  includeUsage: false,
  ...overrides,
});

/** Runs an upstream SSE text through a stream translator; returns the client events as parsed JSON (or raw text). */
export async function runStream(translator: StreamTranslator, upstreamSse: string): Promise<Array<{ event?: string; data: unknown }>> {
  const out: OutEvent[] = [];
  for (const event of await parseSseText(upstreamSse)) out.push(...translator.onEvent(event));
  out.push(...translator.onEnd());
  return out.map(normalise);
}

/** Parses a golden client stream the same way, so both sides compare structurally. */
export async function parseGoldenStream(text: string): Promise<Array<{ event?: string; data: unknown }>> {
  return (await parseSseText(text)).map((e) => normalise({ ...(e.event ? { event: e.event } : {}), data: e.data }));
}

function normalise(out: OutEvent): { event?: string; data: unknown } {
  let data = out.data;
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data);
    } catch {
      // plain text such as [DONE]
    }
  }
  return out.event ? { event: out.event, data } : { data };
}

const UPDATE = process.env.UPDATE_GOLDEN === '1';

/** Compares with a golden file, or rewrites it under UPDATE_GOLDEN=1 (the reviewer reads the diff). */
export function expectGolden(golden: GoldenCase, file: string, actual: unknown): void {
  if (UPDATE) writeFileSync(join(golden.dir, file), JSON.stringify(actual, null, 2) + '\n');
  expect(actual).toEqual(golden.json(file));
}

/** As dispatchStream does for chat families: translate each event, close with onEnd, or end with the chat error event. */
export async function clientChatStream(
  pair: { createStreamTranslator(ctx: TranslateContext): StreamTranslator },
  ctx: TranslateContext,
  upstreamSse: string,
): Promise<{ out: OutEvent[]; usage: unknown }> {
  const translator = pair.createStreamTranslator(ctx);
  const out: OutEvent[] = [];
  try {
    for (const event of await parseSseText(upstreamSse)) out.push(...translator.onEvent(event));
    out.push(...translator.onEnd());
  } catch (error) {
    if (!isGatewayError(error)) throw error;
    out.push(...renderChatStreamError(error));
  }
  return { out, usage: translator.usage() ?? null };
}

/** Compares a client stream with `client-stream.sse` event by event (or rewrites it under UPDATE_GOLDEN=1). */
export async function expectGoldenStream(golden: GoldenCase, out: readonly OutEvent[]): Promise<void> {
  const text = out.map(formatSse).join('');
  if (UPDATE) writeFileSync(join(golden.dir, 'client-stream.sse'), text);
  expect(await parseGoldenStream(text)).toEqual(await parseGoldenStream(golden.text('client-stream.sse')!));
}
