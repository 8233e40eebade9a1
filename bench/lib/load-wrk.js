// `--loader wrk`: the same measurement as load.js, made by wrk (Debian's `wrk` package, a C load
// generator) instead of autocannon. The reference figures were taken with wrk; autocannon
// spends about as much CPU per request as the upstream simulator does, on the same two cores, so
// the two loaders give different ratios and a run can report both.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./wrk.lua', import.meta.url));
const CLOCK_TICKS = 100;
let requestDir;
/** Request files by their content, written once per run. */
const written = new Map();

function requestFiles({ method = 'POST', headers = {}, body = '' }) {
  const key = JSON.stringify([method, headers, body]);
  let files = written.get(key);
  if (!files) {
    if (!requestDir) {
      requestDir = mkdtempSync(join(tmpdir(), 'gateway-bench-wrk-'));
      const dir = requestDir;
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    }
    const base = join(requestDir, String(written.size));
    files = { WRK_METHOD: method, WRK_BODY_FILE: `${base}.body`, WRK_HEADERS_FILE: `${base}.headers` };
    writeFileSync(files.WRK_BODY_FILE, body);
    writeFileSync(files.WRK_HEADERS_FILE, Object.entries(headers).map(([name, value]) => `${name}: ${value}\n`).join(''));
    written.set(key, files);
  }
  return files;
}

/** Whether wrk is on the PATH (`apt-get install -y wrk`). */
export function wrkAvailable() {
  return new Promise((resolve) => {
    const child = spawn('wrk', ['--version'], { stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('exit', () => resolve(true));
  });
}

/**
 * One wrk run: one thread, a 30 s timeout. With two threads on the two cores the servers share,
 * even the bare upstream simulator showed p99 at 70–90× p50 at c256 (1.3 s), against 2× with one
 * thread, which also sent more requests (bench/results/2026-11-24-tail.md). The shell that starts
 * wrk reports its waited-for children's CPU (cutime + cstime), which is wrk's own.
 */
export function runWrk({ url, method, headers, body, connections, durationS }) {
  const env = { ...process.env, ...requestFiles({ method, headers, body }) };
  const threads = 1;
  const args = ['-t', String(threads), '-c', String(connections), '-d', `${Math.max(1, Math.round(durationS))}s`, '--timeout', '30s', '-s', SCRIPT, url];
  const shell = 'wrk "$@" || exit $?; echo "CHILD_STAT $(cat /proc/$$/stat)"';
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', shell, 'sh', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.once('error', reject);
    child.once('exit', (code) => {
      const summary = out.match(/^WRK_JSON (.*)$/m);
      const stat = out.match(/^CHILD_STAT .*\) (.*)$/m);
      if (code !== 0 || !summary || !stat) return reject(new Error(`wrk failed (exit ${code}): ${(err || out).slice(-400)}`));
      resolve(toResult(JSON.parse(summary[1]), stat[1].split(' '), connections));
    });
  });
}

function toResult(s, statFields, connections) {
  const durationS = s.durationUs / 1e6;
  const ok = s.requests - s.status;
  const ms = (us) => Math.round(us) / 1000;
  return {
    connections,
    durationS: Math.round(durationS * 1000) / 1000,
    responses: s.requests,
    rps: Math.round((ok / durationS) * 1000) / 1000,
    // wrk's histogram covers every response, non-2xx included (autocannon's path keeps 2xx only).
    latencyMs: { p50: ms(s.p50), p90: ms(s.p90), p99: ms(s.p99), max: ms(s.max) },
    errors: s.connect + s.read + s.write + s.timeout + s.status,
    statuses: { non2xx: s.status },
    transportErrors: s.connect + s.read + s.write,
    timeouts: s.timeout,
    // Fields 16 and 17 of /proc/<pid>/stat (cutime, cstime), counted from the state field.
    loadGeneratorCpuSeconds: (Number(statFields[13]) + Number(statFields[14])) / CLOCK_TICKS,
  };
}
