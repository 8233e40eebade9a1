#!/usr/bin/env node
// npm 11 writes package-lock.json with only this platform's optional binaries of some packages
// (rollup's), then `npm ci` refuses that same lockfile on every machine. This adds the missing
// entries (version, integrity, os/cpu/libc) from the registry, so `npm ci` works everywhere.
// Run after changing dependencies: `npm run lockfile:complete` (or with a package directory, e.g.
// `node scripts/complete-lockfile.mjs test/agents`, for the agent-client suite's own lockfile).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const file = join(resolve(fileURLToPath(new URL('..', import.meta.url)), process.argv[2] ?? '.'), 'package-lock.json');
const lock = JSON.parse(readFileSync(file, 'utf8'));
let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = path === '' ? '' : `${path}/`;
    if (lock.packages[`${base}node_modules/${name}`] || lock.packages[`node_modules/${name}`]) continue;
    const meta = view(name, range);
    if (!meta) {
      // A platform build this registry does not carry: listed as optional with its version only,
      // which `npm ci` accepts and skips (it cannot install there either way).
      lock.packages[`node_modules/${name}`] = { version: range, ...(entry.dev ? { dev: true } : {}), optional: true };
      process.stdout.write(`${name}@${range} is not in the registry: listed without integrity\n`);
      added++;
      continue;
    }
    lock.packages[`node_modules/${name}`] = {
      version: meta.version,
      integrity: meta['dist.integrity'],
      ...(meta.cpu ? { cpu: [meta.cpu].flat() } : {}),
      ...(entry.dev ? { dev: true } : {}),
      ...(meta.libc ? { libc: [meta.libc].flat() } : {}),
      ...(meta.license ? { license: meta.license } : {}),
      optional: true,
      ...(meta.os ? { os: [meta.os].flat() } : {}),
    };
    added++;
  }
}
/** The registry's metadata of one version, or undefined when the registry does not have it (404). */
function view(name, range) {
  try {
    const info = JSON.parse(execFileSync('npm', ['view', `${name}@${range}`, 'version', 'dist.integrity', 'os', 'cpu', 'libc', 'license', '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
    return Array.isArray(info) ? info.at(-1) : info;
  } catch (error) {
    if (/E404/.test(String(error.stdout))) return undefined;
    throw error;
  }
}

lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
process.stdout.write(`added ${added} optional platform packages to package-lock.json\n`);
