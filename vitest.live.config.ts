import { defineConfig } from 'vitest/config';

/** `npm run test:live`: the opt-in tests against real vendors (keys from the environment). */
export default defineConfig({
  test: { include: ['test/live/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 60_000 },
});
