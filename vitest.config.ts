import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The watchdog times the event loop: it runs alone afterwards (vitest.watchdog.config.ts).
    exclude: ['test/live/**', 'test/watchdog/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
