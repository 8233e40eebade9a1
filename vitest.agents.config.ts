import { defineConfig } from 'vitest/config';

/**
 * The real-client suite (test/agents): coding agents and agent SDKs, installed in test/agents's
 * own package, run against the built gateway (`dist/`). One file at a time: the CLIs are heavy
 * processes and each file starts its own gateways. `scripts/test-agents.mjs` runs it from `npm test`.
 */
export default defineConfig({
  test: {
    include: ['test/agents/**/*.test.ts'],
    exclude: ['test/agents/node_modules/**'],
    testTimeout: 300_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Each file's whole cost, for scripts/test-timing.mjs and the stage warnings (issue 45).
    reporters: ['default', ['./scripts/test-timing-reporter.mjs', { name: 'agents' }]],
    fileParallelism: false,
  },
});
