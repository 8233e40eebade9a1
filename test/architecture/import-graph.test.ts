import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { analyse, floorOf, roomOf } from '../../scripts/import-graph.mjs';
import { ENDPOINT_FAMILIES } from '../../src/contracts/endpoint-family.js';
import { PROVIDERS } from '../../src/providers/registry.js';

interface Upward { from: string; to: string; dynamic: boolean }
interface Analysis { upward: Upward[]; circles: string[][]; unplaced: string[] }

/**
 * The imports allowed to run upward (issue 28), each a deliberate lazy load or wiring; every one is
 * listed with its reason in docs/decisions.md ("Floors of src/").
 */
const ALLOWED_UPWARD: readonly string[] = [];

const src = path.join(import.meta.dirname, '..', '..', 'src');
const analysis = analyse(src) as Analysis;

describe('the import graph of src/ (issue 28)', () => {
  it('puts every room on a floor', () => {
    expect(analysis.unplaced).toEqual([]);
    expect(floorOf(roomOf('contracts/usage.ts'))).toBe(0);
  });

  it('has no circle between rooms', () => {
    expect(analysis.circles).toEqual([]);
  });

  it('runs upward only where docs/decisions.md says why, at most 8 times', () => {
    const upward = analysis.upward.map((u) => `${u.from} -> ${u.to}`);
    expect(upward.filter((u) => !ALLOWED_UPWARD.includes(u))).toEqual([]);
    expect(upward.length).toBeLessThanOrEqual(8);
    const decisions = fs.readFileSync(path.join(src, '..', 'docs', 'decisions.md'), 'utf8');
    for (const u of ALLOWED_UPWARD) expect(decisions).toContain(u);
  });
});

/** Generic code reads vendor and family facts through the registry and the families' facts, never by name. */
describe('no vendor or family name in generic code (issue 28)', () => {
  const GENERIC = ['plugins', 'ratelimit', 'usage', 'telemetry', 'config', 'gateway'];
  const vendors = PROVIDERS.map((p) => p.vendor);
  // `messages`, `images` and `responses` are also field names: as family names they are caught where compared or keyed.
  const fieldLike = new Set(['messages', 'images', 'responses']);
  const anywhere = [...vendors, ...ENDPOINT_FAMILIES.filter((f) => !fieldLike.has(f))];
  const literal = (word: string) => `['"\`]${word.replace(/[-]/g, '\\-')}['"\`]`;
  const anyUse = new RegExp(anywhere.map(literal).join('|'));
  const asFamily = new RegExp([...fieldLike].map((w) => `(?:===|!==|case)\\s*${literal(w)}|${literal(w)}\\s*(?:===|!==)|^\\s*${literal(w)}\\s*:`).join('|'));

  const files: string[] = [];
  for (const dir of GENERIC) {
    (function walk(d: string) {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const full = path.join(d, e.name);
        if (e.isDirectory()) walk(full);
        else if (e.name.endsWith('.ts')) files.push(full);
      }
    })(path.join(src, dir));
  }

  it('finds none in plugins/, ratelimit/, usage/, telemetry/, config/ or gateway/', () => {
    const hits: string[] = [];
    for (const file of files) {
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, i) => {
        const code = line.replace(/\/\/.*$|^\s*\*.*$|^\s*\/\*\*.*$/, '');
        if (anyUse.test(code) || asFamily.test(code)) hits.push(`${path.relative(src, file)}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(hits).toEqual([]);
  });
});
