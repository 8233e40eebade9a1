import { describe, expect, it } from 'vitest';
import { MemoryWindows } from '../../src/ratelimit/memory-windows.js';

describe('MemoryWindows', () => {
  it('counts in fixed windows that open with the first step', () => {
    let now = 1_000;
    const windows = new MemoryWindows(60_000, () => now);
    expect(windows.consume('k:m', 2)).toEqual({ consumedPoints: 2, msBeforeNext: 60_000 });
    now += 10_000;
    expect(windows.consume('k:m', 3)).toEqual({ consumedPoints: 5, msBeforeNext: 50_000 });
    expect(windows.consume('other', 1).consumedPoints).toBe(1);
    now += 50_000;
    expect(windows.get('k:m')).toBeNull();
    expect(windows.consume('k:m', 1)).toEqual({ consumedPoints: 1, msBeforeNext: 60_000 });
  });

  it('gives back only into an open window and never below zero; penalties count without a check', () => {
    let now = 0;
    const windows = new MemoryWindows(1_000, () => now);
    windows.consume('a', 4);
    windows.reward('a', 3);
    expect(windows.get('a')?.consumedPoints).toBe(1);
    windows.reward('a', 10);
    expect(windows.get('a')?.consumedPoints).toBe(0);
    windows.penalty('a', 7);
    expect(windows.get('a')?.consumedPoints).toBe(7);
    now = 1_000;
    windows.reward('a', 5);
    expect(windows.get('a')).toBeNull();
    windows.penalty('b', 2);
    expect(windows.get('b')).toEqual({ consumedPoints: 2, msBeforeNext: 1_000 });
  });
});
