#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=12 --heap-growing-percent=30
/**
 * The `gateway` command's entry point. It checks the Node version before anything else loads
 * (issue 24): the gateway's modules load native bindings built for Node 22's ABI (on Node 20
 * better-sqlite3 ends the process with a segmentation fault), and an ES module's static imports
 * all load before its own code runs. So this file imports nothing of the gateway statically, and
 * the commands (cli/run.ts) come by a dynamic import once the version is right.
 */
import { createRequire } from 'node:module';

const { engines } = createRequire(import.meta.url)('../package.json') as { engines: { node: string } };
const needed = Number(/\d+/.exec(engines.node)?.[0]);
const running = process.versions.node;

if (Number(running.split('.')[0]) < needed) {
  process.stderr.write(
    `gateway: Node.js ${needed} or newer is needed (package.json engines: "${engines.node}"); this is Node.js ${running} (${process.execPath}).\n` +
      `Install Node.js ${needed} LTS, or use \`npm start\`: it runs the Node.js ${needed} that \`npm install\` put in node_modules/.bin.\n`,
  );
  process.exitCode = 1;
} else {
  await import('./cli/run.js');
}
