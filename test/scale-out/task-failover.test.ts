import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileConfig } from '../../src/config/schema.js';
import { providerFor } from '../../src/providers/registry.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { call } from '../helpers/gateway.js';
import { startGatewayProcess, type GatewayProcess } from '../helpers/instance-process.js';
import { createTestDatabase, eventually, TEST_REDIS_URL, type TestDatabase } from '../helpers/services.js';
import { fetchBytes, isMp4, pollUntil } from '../helpers/video.js';

const LEASE_MS = 2_000;

/**
 * The shared DashScope upstream, in this process so it outlives the instances. Result downloads
 * can be held open, which pins the polling instance in the middle of a poll, lease in hand.
 */
async function startHoldingUpstream(): Promise<{ sim: RunningSimulator; hold(): void; release(): void; heldDownloads(): number }> {
  const spec = await providerFor('alibaba-dashscope').simulator();
  let released: Promise<void> | undefined;
  let releaseNow = (): void => undefined;
  let held = 0;
  const sim = await startSimulator(
    {
      ...spec,
      handle: async (req, res) => {
        if (released && req.path.startsWith('/sim-results/')) {
          held++;
          await Promise.race([released, new Promise((resolve) => req.signal.addEventListener('abort', resolve))]);
          if (req.signal.aborted) return true;
        }
        return spec.handle(req, res);
      },
    },
    { video_task_ms: 300 },
  );
  return {
    sim,
    hold: () => {
      released = new Promise<void>((resolve) => (releaseNow = resolve));
    },
    release: () => {
      releaseNow();
      released = undefined;
    },
    heldDownloads: () => held,
  };
}

describe('killing the instance that polls a video task', () => {
  let database: TestDatabase;
  let dataDir: string;
  let upstream: Awaited<ReturnType<typeof startHoldingUpstream>>;
  const instances: GatewayProcess[] = [];
  const names = new Map<number, string>();

  const start = async (name: string): Promise<GatewayProcess> => {
    const file: FileConfig = {
      // The instance's name travels as a header on its upstream calls, so the upstream can tell who polled.
      channels: [{ name: 'dashscope-shared', vendor: 'alibaba-dashscope', base_url: upstream.sim.url, api_key: 'sk-shared', models: { 'zeta-1.0-r2v': 'happyhorse-1.0-r2v' }, headers: { 'x-instance': name } }],
      video_tasks: { lease_ms: LEASE_MS, poll_tick_ms: 100 },
    };
    const instance = await startGatewayProcess({ name, dataDir, databaseUrl: database.url, redisUrl: TEST_REDIS_URL, file });
    instances.push(instance);
    names.set(instance.pid, name);
    return instance;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'gateway-failover-'));
    upstream = await startHoldingUpstream();
    await Promise.all([start('a'), start('b')]);
  }, 60_000);
  afterAll(async () => {
    upstream?.release();
    await Promise.all(instances.map((i) => i.kill()));
    await upstream?.sim.close();
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  /** Creates a task and waits until one instance is stuck downloading its result, lease held. */
  async function taskHeldMidPoll(via: GatewayProcess): Promise<{ id: string; holder: GatewayProcess; survivor: GatewayProcess }> {
    upstream.hold();
    const before = upstream.heldDownloads();
    const created = await call(via, 'POST', '/v1/video/generations', { model: 'zeta-1.0-r2v', prompt: 'A lantern drifting', images: ['https://example.com/ref.png'] });
    expect(created.status, created.text).toBe(200);
    const id = created.json.id as string;
    await eventually(async () => (upstream.heldDownloads() > before ? true : undefined));
    const row = await database.db.selectFrom('video_tasks').select(['status', 'lease_owner', 'lease_until']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.status).not.toBe('completed');
    expect(row.lease_until).toBeGreaterThan(Date.now());
    // Owner ids are `<host>:<pid>:<uuid>`: the pid says which instance holds the task.
    const [host, pid] = row.lease_owner!.split(':');
    expect(host).toBe(hostname());
    const alive = instances.filter((i) => i.alive);
    const holder = alive.find((i) => i.pid === Number(pid))!;
    expect(holder, `lease owner ${row.lease_owner}`).toBeDefined();
    return { id, holder, survivor: alive.find((i) => i !== holder)! };
  }

  /** The upstream task queries an instance sent for one upstream task. */
  const polls = (upstreamId: string, name: string) =>
    upstream.sim.requests.filter((r) => r.method === 'GET' && r.path === `/api/v1/tasks/${upstreamId}` && r.headers['x-instance'] === name).length;

  it('is picked up by the other instance once the lease runs out, and completes with its file', async () => {
    const { id, holder, survivor } = await taskHeldMidPoll(instances[0]!);
    const survivorName = names.get(survivor.pid)!;
    const upstreamId = await upstreamIdOf(id);
    const survivorPollsBefore = polls(upstreamId, survivorName);

    await holder.kill();
    const killedAt = Date.now();
    upstream.release();

    const seen = await pollUntil(survivor, `/v1/video/generations/${id}`, (task) => task.status === 'completed' || task.status === 'failed', { timeoutMs: 15_000 });
    const done = seen.at(-1);
    const tookMs = Date.now() - killedAt;
    expect(done).toMatchObject({ id, status: 'completed', progress: 100, error: null });
    // Not before the dead instance's lease ran out, and soon after.
    expect(tookMs).toBeGreaterThanOrEqual(LEASE_MS - 500);
    expect(tookMs).toBeLessThan(LEASE_MS + 5_000);
    // The survivor asked the upstream itself once it had taken the task over.
    expect(polls(upstreamId, survivorName)).toBeGreaterThan(survivorPollsBefore);

    const file = await fetchBytes(done.video_url);
    expect(file.status).toBe(200);
    expect(isMp4(file.bytes)).toBe(true);
    const row = await database.db.selectFrom('video_tasks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'completed', lease_owner: null, charged: 1 });
    // Charged once, by the survivor.
    const events = await eventually(async () => {
      const rows = await database.db.selectFrom('usage_events').selectAll().where('request_id', '=', id).execute();
      return rows.length > 0 ? rows : undefined;
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ outcome: 'video_completed', video_seconds: 2 });
  });

  it('is handed over at once when the polling instance shuts down gracefully', async () => {
    await start('c');
    const { id, holder, survivor } = await taskHeldMidPoll(instances.find((i) => i.alive)!);
    await holder.stop();
    const stoppedAt = Date.now();
    upstream.release();
    const seen = await pollUntil(survivor, `/v1/video/generations/${id}`, (task) => task.status === 'completed' || task.status === 'failed', { timeoutMs: 15_000 });
    expect(seen.at(-1)).toMatchObject({ id, status: 'completed' });
    // The stopping instance gave its lease back: no waiting for it to run out.
    expect(Date.now() - stoppedAt).toBeLessThan(LEASE_MS);
  }, 60_000);

  async function upstreamIdOf(id: string): Promise<string> {
    const row = await database.db.selectFrom('video_tasks').select('upstream_id').where('id', '=', id).executeTakeFirstOrThrow();
    return row.upstream_id;
  }
});
