import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '../helpers/instance-process.js';
import { call, startTestGateway, TEST_ADMIN_TOKEN, TEST_KEY } from '../helpers/gateway.js';
import { assertEnvelope } from '../helpers/envelopes.js';

const SEGMENT = /^seg-(\d+)\.ndjson$/;
const segmentName = (n: number) => `seg-${String(n).padStart(8, '0')}.ndjson`;
const chat = (gateway: { url: string }) => call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });

async function until(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  for (let waited = 0; !(await check()); waited += 100) {
    if (waited > ms) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The one instance folder under `<dataDir>/usage-journal`, and the number of its newest segment. */
function journalOf(dataDir: string): { folder: string; newest: number } {
  const base = join(dataDir, 'usage-journal');
  const folder = join(base, readdirSync(base)[0]!);
  const numbers = readdirSync(folder).flatMap((name) => (SEGMENT.exec(name) ? [Number(SEGMENT.exec(name)![1])] : []));
  return { folder, newest: Math.max(...numbers) };
}

/**
 * Issue 34: journal writes failed silently on a full disk, answers went on, and a crash then lost
 * the billed usage of every answer since. Now a failing journal is loud (a log line per episode,
 * a metric, /readyz) and billable work is refused until it writes again.
 */
describe('a usage journal that cannot be written (issue 34)', () => {
  describe('/dev/full as the journal (ENOSPC on every write, no privileges needed)', () => {
    let gateway: GatewayProcess;
    let dataDir: string;
    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'gateway-disk-full-'));
      gateway = await startGatewayProcess({ name: 'disk-full', dataDir, databaseUrl: '', file: {}, logLevel: 'info' });
    }, 60_000);
    afterAll(async () => {
      await gateway?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('refuses billable work with 503 in each envelope, says so once in the log, the metric and /readyz, and recovers on its own', async () => {
      expect(existsSync('/dev/full')).toBe(true);
      const { folder, newest } = journalOf(dataDir);
      // The segments the journal rotates to next are /dev/full.
      const full = Array.from({ length: 30 }, (_, i) => join(folder, segmentName(newest + 1 + i)));
      for (const path of full) symlinkSync('/dev/full', path);
      expect((await chat(gateway)).status).toBe(200);
      // The recorder's next batch rotates the journal onto /dev/full (and drops the written segment).
      await until(() => !existsSync(join(folder, segmentName(newest))));
      expect((await chat(gateway)).status).toBe(200);

      const refused = await chat(gateway);
      expect(refused.status).toBe(503);
      assertEnvelope('chat', refused.json);
      expect(refused.json.error.message).toContain('usage journal');
      const anthropic = await call(gateway, 'POST', '/v1/messages', { model: 'delta-4.1', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }, { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' });
      expect(anthropic.status).toBe(503);
      assertEnvelope('anthropic', anthropic.json);
      const google = await call(gateway, 'POST', '/v1beta/models/gamma-2.5-flash-lite:generateContent', { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }, { 'x-goog-api-key': TEST_KEY });
      expect(google.status).toBe(503);
      assertEnvelope('google', google.json);
      const general = await call(gateway, 'POST', '/v1/responses', { model: 'beta-seed-2.0-pro', input: 'hi' });
      expect(general.status).toBe(503);
      assertEnvelope('general', general.json);

      const ready = await fetch(`${gateway.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ reason: 'usage journal cannot be written' });
      const metrics = await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).text();
      expect(metrics).toMatch(/^gateway_usage_journal_failing 1$/m);
      // Several refusals and probes, one line for the episode.
      expect(gateway.stdout.split('usage journal cannot be written').length - 1).toBe(1);

      // Room again: the probe notices within a second or two, without a restart.
      for (const path of full) rmSync(path, { force: true });
      await until(async () => (await fetch(`${gateway.url}/readyz`)).status === 200);
      expect((await chat(gateway)).status).toBe(200);
      expect(gateway.stdout).toContain('the usage journal is written again');
      expect(gateway.stdout.split('usage journal cannot be written').length - 1).toBe(1);
    }, 60_000);
  });

  describe('a full tmpfs under the data directory', () => {
    let mountPoint: string | undefined;
    let skipReason = '';
    beforeAll(() => {
      mountPoint = mkdtempSync(join(tmpdir(), 'gateway-tmpfs-'));
      try {
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=512k', 'tmpfs', mountPoint], { stdio: 'pipe' });
      } catch (error) {
        skipReason = `cannot mount a tmpfs here (${(error as Error).message.split('\n')[0]}): the /dev/full variant above covers the same path`;
        rmSync(mountPoint, { recursive: true, force: true });
        mountPoint = undefined;
      }
    });
    afterAll(() => {
      if (!mountPoint) return;
      execFileSync('umount', [mountPoint]);
      rmSync(mountPoint, { recursive: true, force: true });
    });

    it('ENOSPC from a real full filesystem: refused, then recovered once space is freed', async (context) => {
      if (!mountPoint) {
        context.skip(skipReason);
        return;
      }
      const dataDir = mkdtempSync(join(tmpdir(), 'gateway-tmpfs-data-'));
      // Only the journal is on the small filesystem; the database stays on the ordinary disk.
      mkdirSync(join(mountPoint, 'journal'));
      symlinkSync(join(mountPoint, 'journal'), join(dataDir, 'usage-journal'));
      const gateway = await startTestGateway({ dataDir, env: { usageJournalProbeMs: 100 } });
      try {
        expect((await chat(gateway)).status).toBe(200);
        await gateway.deps.usage.flush();
        // Fill what is left (tmpfs counts in pages: a last byte may not fit, a filler file of the free size will).
        const filler = join(mountPoint, 'filler');
        try {
          writeFileSync(filler, Buffer.alloc(1024 * 1024));
        } catch {
          /* ENOSPC: full, as wanted */
        }
        expect((await chat(gateway)).status).toBe(200);
        await until(() => gateway.deps.usage.isJournalFailing);
        const refused = await chat(gateway);
        expect(refused.status).toBe(503);
        assertEnvelope('chat', refused.json);
        expect((await fetch(`${gateway.url}/readyz`)).status).toBe(503);

        unlinkSync(filler);
        await until(() => !gateway.deps.usage.isJournalFailing);
        expect((await chat(gateway)).status).toBe(200);
        expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
      } finally {
        await gateway.stop();
      }
    }, 30_000);
  });
});
