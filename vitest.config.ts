import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The watchdog times the event loop: it runs alone afterwards (vitest.watchdog.config.ts); the
    // real agent clients have their own package and config (vitest.agents.config.ts).
    exclude: ['test/live/**', 'test/watchdog/**', 'test/agents/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
