#!/usr/bin/env node
// npm 11 writes package-lock.json with only this platform's optional binaries of some packages
// (rollup's), then `npm ci` refuses that same lockfile on every machine. This adds the missing
// entries (version, integrity, os/cpu/libc) from the registry, so `npm ci` works everywhere.
// Run after changing dependencies: `npm run lockfile:complete`.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = path === '' ? '' : `${path}/`;
    if (lock.packages[`${base}node_modules/${name}`] || lock.packages[`node_modules/${name}`]) continue;
    const info = JSON.parse(execFileSync('npm', ['view', `${name}@${range}`, 'version', 'dist.integrity', 'os', 'cpu', 'libc', 'license', '--json'], { encoding: 'utf8' }));
    const meta = Array.isArray(info) ? info.at(-1) : info;
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
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
process.stdout.write(`added ${added} optional platform packages to package-lock.json\n`);
