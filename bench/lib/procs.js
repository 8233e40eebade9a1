// Child processes of a benchmark run, and what they cost: CPU from /proc/<pid>/stat
// (utime + stime) and peak RSS from /proc/<pid>/status (VmHWM), summed over the process tree
// so GATEWAY_WORKERS=N (node:cluster workers) is counted in full.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';

const CLOCK_TICKS = 100; // getconf CLK_TCK on Linux

/** A free TCP port on 127.0.0.1 (bind to port 0, read it, release it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a child process and resolves once `ready(line)` matches a stdout line (its value is
 * returned) or `readyUrl` answers. Output past readiness is drained; stderr is kept for errors.
 */
export function startProcess(name, command, args, { env = {}, ready, readyUrl, timeoutMs = 20_000 } = {}) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const started = new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left behind: a cluster primary whose data directory the caller then removes forks workers forever.
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start within ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    const done = (value) => {
      clearTimeout(timer);
      resolve(value);
    };
    void exited.then(({ code, signal }) => reject(new Error(`${name} exited early (${code ?? signal})\n${stderr}`)));
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      if (!ready) return;
      buffered += chunk;
      let at;
      while ((at = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, at);
        buffered = buffered.slice(at + 1);
        const value = ready(line);
        if (value !== undefined && value !== false) done(value);
      }
    });
    if (readyUrl) void pollUntilUp(readyUrl, timeoutMs).then(done, () => undefined);
  });
  return started.then((value) => ({
    name,
    pid: child.pid,
    value,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  }));
}

async function pollUntilUp(url, timeoutMs) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      await fetch(url, { signal: AbortSignal.timeout(1000) });
      return true;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${url} never answered`);
}

/** The pid and all its descendants (cluster workers), from /proc/<pid>/task/<tid>/children. */
export function processTree(pid) {
  const all = [pid];
  for (let i = 0; i < all.length; i++) {
    try {
      for (const task of readdirSync(`/proc/${all[i]}/task`)) {
        const children = readFileSync(`/proc/${all[i]}/task/${task}/children`, 'utf8').trim();
        if (children) all.push(...children.split(/\s+/).map(Number));
      }
    } catch {
      // The process went away between listing and reading: nothing more to count.
    }
  }
  return all;
}

/** CPU seconds (user + system) used so far by the process tree. */
export function cpuSeconds(pid) {
  let ticks = 0;
  for (const p of processTree(pid)) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces) start at state (field 3).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // Exited: its time is lost, as it would be for any sampler.
    }
  }
  return ticks / CLOCK_TICKS;
}

function statusField(pid, field) {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Peak RSS in bytes since the last reset, summed over the tree (an upper bound for workers). */
export function peakRss(pid) {
  return processTree(pid).reduce((sum, p) => sum + statusField(p, 'VmHWM'), 0);
}

export function currentRss(pid) {
  return processTree(pid).reduce((sum, p) => sum + statusField(p, 'VmRSS'), 0);
}

/**
 * Resets VmHWM to the current RSS (writing 5 to clear_refs, Linux ≥ 4.0), so each measurement
 * gets its own peak. Returns false where that is not permitted; peaks are then lifetime peaks.
 */
export function resetPeakRss(pid) {
  let ok = true;
  for (const p of processTree(pid)) {
    try {
      writeFileSync(`/proc/${p}/clear_refs`, '5');
    } catch {
      ok = false;
    }
  }
  return ok;
}

/** CPU seconds the whole machine has been busy (all cores, /proc/stat), to spot other load. */
export function machineBusySeconds() {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: everything but idle and iowait is busy.
  const busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + (fields[7] ?? 0);
  return busy / CLOCK_TICKS;
}

/** This process's open-file limit (soft and hard), from /proc/self/limits; null where unreadable. */
export function openFileLimit() {
  try {
    const match = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    const value = (word) => (word === 'unlimited' ? Infinity : Number(word));
    return match ? { soft: value(match[1]), hard: value(match[2]) } : null;
  } catch {
    return null;
  }
}

/**
 * The command and arguments that run `command` with its soft open-file limit raised to `files`
 * (up to the hard limit, which needs no privilege): `sh -c 'ulimit -n N && exec …'`, so the pid
 * is the program's own. Node cannot raise its own limit.
 */
export function withOpenFileLimit(files, command, args) {
  return ['/bin/sh', ['-c', `ulimit -n ${files} && exec "$0" "$@"`, command, ...args]];
}

/** `taskset -c cpus command args` where CPUs are named (many-core runs), else the command as is. */
export function pinned(cpus, command, args) {
  return cpus ? ['taskset', ['-c', cpus, command, ...args]] : [command, args];
}
