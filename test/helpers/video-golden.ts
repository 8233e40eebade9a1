import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { TranslateContext } from '../../src/contracts/translator.js';
import type { PollTarget, VideoAdapter } from '../../src/contracts/video-adapter.js';

interface VideoCase {
  description: string;
  source: string;
  kind: 'create' | 'poll' | 'error';
  context?: { model: string; upstreamModel: string };
  target?: PollTarget;
  status?: number;
}

const read = (dir: string, file: string): unknown => JSON.parse(readFileSync(join(dir, file), 'utf8'));

/** Compares with the golden file, or rewrites it when UPDATE_GOLDEN=1 (STYLE.md §9). */
function matchGolden(dir: string, file: string, actual: unknown): void {
  const normalised = JSON.parse(JSON.stringify(actual)) as unknown;
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(join(dir, file), JSON.stringify(normalised, null, 2) + '\n');
  else expect(normalised).toEqual(read(dir, file));
}

/** Runs every `video-*` case of a vendor's fixtures through its pure video translators. */
export function runVideoGoldenCases(fixturesDir: string, adapter: VideoAdapter<unknown>): void {
  const cases = readdirSync(fixturesDir).filter((name) => name.startsWith('video-'));
  it('has the create, poll-succeeded and poll-failed cases', () => {
    expect(cases).toEqual(expect.arrayContaining(['video-create', 'video-poll-succeeded', 'video-poll-failed']));
  });
  for (const name of cases) {
    const dir = join(fixturesDir, name);
    const spec = read(dir, 'case.json') as VideoCase;
    it(`${name}: ${spec.description}`, () => {
      switch (spec.kind) {
        case 'create': {
          const ctx: TranslateContext = { ...spec.context!, requestId: 'req_golden', now: 1_774_805_076, includeUsage: false };
          matchGolden(dir, 'upstream-request.json', adapter.toCreateRequest(read(dir, 'client-request.json'), ctx));
          matchGolden(dir, 'client-response.json', adapter.fromCreateResponse(read(dir, 'upstream-response.json')));
          break;
        }
        case 'poll':
          matchGolden(dir, 'upstream-request.json', adapter.toPollRequest(spec.target!));
          matchGolden(dir, 'client-response.json', adapter.fromPollResponse(read(dir, 'upstream-response.json')));
          break;
        case 'error': {
          const error = adapter.fromUpstreamError(spec.status!, read(dir, 'upstream-response.json'));
          matchGolden(dir, 'client-response.json', { status: error.status, code: error.code, message: error.message });
          break;
        }
      }
    });
  }
}
