import { relative } from 'node:path';
import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order test files start in (issue 45): longest first, so that on a few workers the long
 * files do not start last and run alone at the end. Vitest orders by its own cache of the last
 * run, which a fresh clone lacks (it then goes by file size, and the slowest file, a short one
 * that spawns processes, started last). This reads the committed figures of a whole run instead
 * (test/file-durations.json, written by
 * `node scripts/test-timing.mjs test-artifacts/timing/vitest.json --durations test/file-durations.json`);
 * a file new since then goes by vitest's cache where this machine has one, else counts as an
 * average file.
 */
const committed: Record<string, number> = JSON.parse(readFileSync(new URL('./file-durations.json', import.meta.url), 'utf8'));
const UNKNOWN_S = 5;

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const seconds = (spec: TestSpecification) =>
      committed[relative(root, spec.moduleId)] ?? (this.ctx.cache.getTestSpecificationResult(spec)?.duration ?? UNKNOWN_S * 1000) / 1000;
    const order = new Map(files.map((spec) => [spec, seconds(spec)]));
    return [...files].sort((a, b) => order.get(b)! - order.get(a)!);
  }
}
