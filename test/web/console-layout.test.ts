import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The console's floors (docs/decisions.md, "Console layout (issue 28)"): each folder of web/src may
// import only the folders below it; files at the top of web/src (main.tsx, app.tsx) wire the pages.
const SRC = resolve(import.meta.dirname, '../../web/src');
const MAY_IMPORT: Record<string, readonly string[]> = {
  lib: ['lib'],
  shell: ['lib', 'shell'],
  components: ['lib', 'shell', 'components'],
  features: ['lib', 'shell', 'components'],
};
const MOST_LINES = 200;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** `lib`, `shell`, `components`, or `features/<page>`: a page may import from its own folder only. */
function floorOf(path: string): string {
  const [top, page] = relative(SRC, path).split('/');
  return top === 'features' ? `features/${page}` : (top ?? '');
}

function relativeImports(text: string): string[] {
  const found = text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.[^']+)'/g);
  return [...found].map((match) => match[1]!);
}

describe('console source layout (issue 28)', () => {
  const files = sourceFiles(SRC);

  it('finds the console sources', () => {
    expect(files.length).toBeGreaterThan(30);
  });

  it('has each folder import only the floors below it, and no page another page', () => {
    const wrong: string[] = [];
    for (const file of files) {
      const from = floorOf(file);
      if (!from.includes('/') && !(from in MAY_IMPORT)) continue;
      for (const target of relativeImports(readFileSync(file, 'utf8'))) {
        const to = floorOf(resolve(dirname(file), target));
        const allowed = from.startsWith('features/') ? [...MAY_IMPORT.features!, from] : MAY_IMPORT[from]!;
        if (!allowed.includes(to)) wrong.push(`${relative(SRC, file)} -> ${target}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it(`keeps every source file under ${MOST_LINES} lines`, () => {
    const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    const long = files.map((file) => ({ file: relative(SRC, file), lines: lineCount(readFileSync(file, 'utf8')) })).filter(({ lines }) => lines > MOST_LINES);
    expect(long).toEqual([]);
  });
});
