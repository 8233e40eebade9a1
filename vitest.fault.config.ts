import { defineConfig } from 'vitest/config';

/**
 * The fault run (test/fault, issue 23): two gateway processes on a PostgreSQL and a Redis of its
 * own, restarted and killed under load. Minutes long, so not part of `npm test`: `npm run test:fault`.
 */
export default defineConfig({
  test: {
    include: ['test/fault/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
