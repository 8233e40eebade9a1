import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../src/errors.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The rows of docs/errors.md's table: code, status and the client's code, as written. */
function documentedCodes(): Map<string, { status: number; publicCode: string; meaning: string }> {
  const rows = new Map<string, { status: number; publicCode: string; meaning: string }>();
  for (const line of readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8').split('\n')) {
    const row = /^\| `(GW_[A-Z_]+)` \| (\d{3}) \| `([a-z_]+)` \| (.+) \|$/.exec(line);
    if (!row) continue;
    expect(rows.has(row[1]!), `${row[1]} documented twice`).toBe(false);
    rows.set(row[1]!, { status: Number(row[2]), publicCode: row[3]!, meaning: row[4]!.trim() });
  }
  return rows;
}

/** Every .ts file under src/, with its text. */
function sources(dir = join(ROOT, 'src')): Array<{ path: string; text: string }> {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [{ path, text: readFileSync(path, 'utf8') }] : [];
  });
}

describe('one error catalogue, documented and tested (issue 43, item 4)', () => {
  it('docs/errors.md lists every GW_* code of src/errors.ts with its status and client code, and no other', () => {
    const documented = documentedCodes();
    expect([...documented.keys()].sort()).toEqual(Object.keys(ERRORS).sort());
    for (const [code, kind] of Object.entries(ERRORS)) {
      expect({ code, status: documented.get(code)!.status, publicCode: documented.get(code)!.publicCode }).toEqual({ code, status: kind.status, publicCode: kind.publicCode });
      expect(documented.get(code)!.meaning.length, `${code} needs a meaning`).toBeGreaterThan(10);
    }
  });

  it('holds no dead code: each one is raised or read somewhere outside the catalogue', () => {
    const others = sources().filter((file) => !file.path.endsWith(join('src', 'errors.ts')));
    const unused = Object.keys(ERRORS).filter((code) => !others.some((file) => file.text.includes(`'${code}'`)));
    expect(unused).toEqual([]);
  });

  it('is linked from the README', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('(docs/errors.md)');
  });
});
