import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/longest-first.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The watchdog times the event loop: it runs alone afterwards (vitest.watchdog.config.ts); the
    // real agent clients have their own package and config (vitest.agents.config.ts). The fault run
    // (issue 23) takes minutes and its own servers: `npm run test:fault`.
    exclude: ['test/live/**', 'test/watchdog/**', 'test/agents/**', 'test/fault/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll's own default deadline is 1 s, a guess that a loaded 2-core machine misses
    // (issue 45: the ledger's last event landed later); a poll still ends as soon as it holds.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    // Issue 45, measured on 2 cores (docs/testing.md): half a file's time is waiting (sockets,
    // child processes, timers), so three workers beat vitest's default of one (CPUs − 1); and
    // one worker runs file after file with the modules it has loaded (isolate: false) instead of
    // a fresh process importing the gateway again per file, a third less CPU. Files therefore share
    // a process: a helper that registers hooks exports a function each file calls (test/cli/
    // cli-process.ts), and a file that changes process-wide state puts it back.
    maxWorkers: 3,
    isolate: false,
    // Longest first from the committed figures, so no long file starts last (test/longest-first.ts).
    sequence: { sequencer: LongestFirst },
    // Each file's whole cost, for scripts/test-timing.mjs and the stage warnings (issue 45).
    reporters: ['default', ['./scripts/test-timing-reporter.mjs', { name: 'vitest' }]],
  },
});
