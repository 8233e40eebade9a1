import { defineConfig } from 'vitest/config';

/**
 * The event-loop watchdog (test/watchdog) asserts /healthz latency: it runs after the rest of the
 * suite, one file at a time, so other test files do not take the two CPUs it measures on.
 */
export default defineConfig({
  test: {
    include: ['test/watchdog/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Each file's whole cost, for scripts/test-timing.mjs and the stage warnings (issue 45).
    reporters: ['default', ['./scripts/test-timing-reporter.mjs', { name: 'watchdog' }]],
    fileParallelism: false,
  },
});
