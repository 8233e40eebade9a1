#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { providerFor } from '../providers/registry.js';
import { startSimulator, type RunningSimulator } from '../simulator/server.js';

/**
 * The simulators as a process of their own, the upstream for benchmarks (bench/): the OpenAI and
 * Gemini simulators answer at once (no first-token delay, no pacing), so what a benchmark
 * measures through the gateway is the gateway. `--slow-port` adds a paced OpenAI simulator for
 * the many-slow-streams scenario. Prints one JSON line with the URLs once listening.
 *
 *   node dist/cli/simulator-standalone.js --openai-port 9101 --gemini-port 9102 [--slow-port 9103 --slow-tokens-per-second 10]
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'openai-port': { type: 'string', default: '0' },
      'gemini-port': { type: 'string', default: '0' },
      'slow-port': { type: 'string' },
      'slow-tokens-per-second': { type: 'string', default: '10' },
    },
  });
  const port = (name: string, value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`--${name} must be a port number, got '${value}'`);
    return n;
  };
  const running: Record<string, RunningSimulator> = {
    openai: await startSimulator(providerFor('openai').simulator, {}, port('openai-port', values['openai-port'])),
    gemini: await startSimulator(providerFor('gemini').simulator, {}, port('gemini-port', values['gemini-port'])),
  };
  if (values['slow-port'] !== undefined) {
    const tokensPerSecond = Number(values['slow-tokens-per-second']);
    if (!(tokensPerSecond > 0)) throw new Error('--slow-tokens-per-second must be a positive number');
    running.slow = await startSimulator(providerFor('openai').simulator, { tokens_per_second: tokensPerSecond }, port('slow-port', values['slow-port']));
  }
  process.stdout.write(JSON.stringify(Object.fromEntries(Object.entries(running).map(([name, sim]) => [name, sim.url]))) + '\n');

  const stop = async (): Promise<void> => {
    await Promise.all(Object.values(running).map((sim) => sim.close()));
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  process.stderr.write(`simulator: ${(error as Error).message}\n`);
  process.exit(1);
});
