import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/**
 * Issue 15, packaging: what the Dockerfile and compose.yaml promise, checked on every machine;
 * hadolint lints the Dockerfile where it is installed, and the image is built where a container
 * engine answers (GATEWAY_TEST_IMAGE_BUILD=1; the base image must be reachable).
 */
const ROOT = join(import.meta.dirname, '..', '..');
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const instructions = dockerfile.split('\n').filter((line) => /^[A-Z]+\s/.test(line));
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

describe('Dockerfile', () => {
  it('builds in one stage and runs in another, as a non-root user, data in a volume', () => {
    expect(instructions.filter((line) => line.startsWith('FROM ')).length).toBeGreaterThanOrEqual(2);
    const runtime = instructions.slice(instructions.findLastIndex((line) => line.startsWith('FROM ')));
    expect(runtime.find((line) => line.startsWith('USER '))).toMatch(/^USER (node|\d{3,})$/);
    expect(runtime.some((line) => line.startsWith('VOLUME ') && line.includes('/data'))).toBe(true);
    expect(dockerfile.slice(dockerfile.lastIndexOf('\nFROM '))).toContain('GATEWAY_DATA_DIR=/data');
  });

  it('checks health on /readyz and starts node itself (exec form), so SIGTERM reaches the server', () => {
    expect(dockerfile).toMatch(/HEALTHCHECK[\s\S]*\/readyz/);
    const cmd = instructions.find((line) => line.startsWith('CMD '))!;
    expect(JSON.parse(cmd.slice(4))).toEqual(['node', '--max-semi-space-size=12', '--heap-growing-percent=30', 'dist/cli.js', 'start']);
    // The same V8 flags as npm start and the bin's shebang.
    const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
    expect(start).toContain('node --max-semi-space-size=12 --heap-growing-percent=30 dist/cli.js start');
  });

  it.skipIf(!has('hadolint'))('passes hadolint', () => {
    const lint = spawnSync('hadolint', ['--failure-threshold', 'warning', join(ROOT, 'Dockerfile')], { encoding: 'utf8' });
    expect(lint.status, lint.stdout + lint.stderr).toBe(0);
  });

  it.skipIf(process.env.GATEWAY_TEST_IMAGE_BUILD !== '1' || !has('docker'))('builds', () => {
    const build = spawnSync('docker', ['build', '-t', 'model-gateway:test', ROOT], { encoding: 'utf8', timeout: 600_000 });
    expect(build.status, build.stderr.slice(-2000)).toBe(0);
  }, 600_000);
});

describe('compose.yaml', () => {
  const compose = parse(readFileSync(join(ROOT, 'compose.yaml'), 'utf8')) as { services: Record<string, any>; volumes: Record<string, unknown> };

  it('runs the gateway with PostgreSQL and Redis, waiting for both to be healthy', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['gateway', 'postgres', 'redis']);
    const gateway = compose.services.gateway;
    expect(gateway.build).toBe('.');
    expect(gateway.environment.DATABASE_URL).toMatch(/^postgres:\/\/gateway:.*@postgres:5432\/gateway$/);
    expect(gateway.environment.REDIS_URL).toBe('redis://redis:6379');
    expect(gateway.depends_on).toEqual({ postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } });
    expect(gateway.volumes).toContain('media:/data');
    expect(compose.services.postgres.healthcheck.test).toContain('pg_isready');
    expect(Object.keys(compose.volumes)).toEqual(expect.arrayContaining(['pgdata', 'media']));
  });

  it('gives a stop more time than the drain deadline', () => {
    const grace = Number(/^(\d+)s$/.exec(compose.services.gateway.stop_grace_period)![1]);
    expect(grace * 1000).toBeGreaterThan(25_000);
  });

  it('never ships secrets: the bootstrap key and admin token come from the environment', () => {
    expect(compose.services.gateway.environment.GATEWAY_BOOTSTRAP_KEY).toMatch(/^\$\{GATEWAY_BOOTSTRAP_KEY:\?/);
    expect(compose.services.gateway.environment.GATEWAY_ADMIN_TOKEN).toMatch(/^\$\{GATEWAY_ADMIN_TOKEN:\?/);
  });
});
