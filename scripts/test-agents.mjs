#!/usr/bin/env node
// `npm test`'s last step: the real-client suite (test/agents), when its own package is installed
// (`npm ci --prefix test/agents`, ~1.4 GB of CLIs; .ci/run always installs it). Otherwise one line
// says it was skipped, so everyone else's `npm test` stays fast.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
if (!existsSync(new URL('../test/agents/node_modules/.package-lock.json', import.meta.url))) {
  console.log('agent-client suite skipped: test/agents is not installed (cd test/agents && npm ci, to run it)');
  process.exit(0);
}
for (const args of [['tsc', '-p', 'test/agents/tsconfig.json'], ['vitest', 'run', '--config', 'vitest.agents.config.ts']]) {
  const { status } = spawnSync('npx', ['--no-install', ...args], { cwd: root, stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
}
