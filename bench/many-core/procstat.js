// What the gateway's processes cost during one load run, read from /proc: CPU (utime + stime),
// run-queue wait (schedstat), context switches and RSS, per process and per thread, for the
// primary and every node:cluster worker. Also the CPU layout: which logical CPUs share a core.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

const CLOCK_TICKS = 100; // getconf CLK_TCK on Linux

const read = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

/** Fields after the command name of a /proc stat line (field 3, state, is index 0). */
const statFields = (text) => text.slice(text.lastIndexOf(')') + 2).split(' ');

/** The process and all its descendants (the cluster's workers), by parent pid. */
export function processTree(rootPid) {
  const parents = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const fields = statFields(read(`/proc/${name}/stat`));
    if (fields.length > 2) parents.set(Number(name), Number(fields[1]));
  }
  const tree = [rootPid];
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  return tree;
}

function taskSample(dir) {
  const fields = statFields(read(`${dir}/stat`));
  const [runNs, waitNs] = read(`${dir}/schedstat`).split(' ').map(Number);
  const status = read(`${dir}/status`);
  const num = (name) => Number(status.match(new RegExp(`^${name}:\\s+(\\d+)`, 'm'))?.[1] ?? 0);
  const comm = read(`${dir}/comm`).trim();
  return {
    comm,
    cpuS: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS,
    runNs: runNs || 0,
    waitNs: waitNs || 0,
    ctxVoluntary: num('voluntary_ctxt_switches'),
    ctxInvoluntary: num('nonvoluntary_ctxt_switches'),
    rssKiB: num('VmRSS'),
    hwmKiB: num('VmHWM'),
  };
}

/** One sample of every process in the tree and every thread of each. */
export function sampleTree(rootPid) {
  const processes = new Map();
  for (const pid of processTree(rootPid)) {
    const threads = new Map();
    for (const tid of readdirSync(`/proc/${pid}/task`, { throwIfNoEntry: false }) ?? []) threads.set(tid, taskSample(`/proc/${pid}/task/${tid}`));
    let sockets = 0;
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        try {
          if (readlinkFd(pid, fd).startsWith('socket:')) sockets++;
        } catch {
          // closed between the listing and the read
        }
      }
    } catch {
      // the process ended
    }
    processes.set(pid, { ...taskSample(`/proc/${pid}`), ...ownPages(pid), threads, sockets });
  }
  return { at: process.hrtime.bigint(), processes };
}

/**
 * RSS counts the node binary's file pages in every process; PSS shares them out among the
 * processes that map them, and RssAnon (heaps, stacks, malloc) is what the process holds alone.
 */
function ownPages(pid) {
  const kib = (text, name) => Number(text.match(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm'))?.[1] ?? 0);
  try {
    return { pssKiB: kib(read(`/proc/${pid}/smaps_rollup`), 'Pss'), anonKiB: kib(read(`/proc/${pid}/status`), 'RssAnon') };
  } catch {
    return { pssKiB: 0, anonKiB: 0 }; // the process ended
  }
}

const readlinkFd = (pid, fd) => readlinkSync(`/proc/${pid}/fd/${fd}`);

/**
 * What happened between two samples: per process (primary first) CPU share of one core,
 * run-queue wait share, context switches, sockets held, RSS; its busiest threads; and totals.
 */
export function diffTree(before, after, rootPid) {
  const seconds = Number(after.at - before.at) / 1e9;
  const rows = [];
  for (const [pid, end] of after.processes) {
    const start = before.processes.get(pid);
    if (!start) continue;
    const threads = [];
    for (const [tid, t] of end.threads) {
      const s = start.threads.get(tid);
      if (s) threads.push({ comm: tid === String(pid) ? 'main' : t.comm, cpu: round((t.cpuS - s.cpuS) / seconds), wait: round((t.waitNs - s.waitNs) / 1e9 / seconds) });
    }
    threads.sort((a, b) => b.cpu - a.cpu);
    rows.push({
      pid,
      role: pid === rootPid ? 'primary' : 'worker',
      cpu: round((end.cpuS - start.cpuS) / seconds),
      runQueueWait: round((sumThreads(end, 'waitNs') - sumThreads(start, 'waitNs')) / 1e9 / seconds),
      ctxVoluntaryPerS: Math.round((end.ctxVoluntary - start.ctxVoluntary) / seconds),
      ctxInvoluntaryPerS: Math.round((end.ctxInvoluntary - start.ctxInvoluntary) / seconds),
      sockets: end.sockets,
      rssMiB: round(end.rssKiB / 1024),
      pssMiB: round(end.pssKiB / 1024),
      anonMiB: round(end.anonKiB / 1024),
      threads: threads.slice(0, 5),
    });
  }
  const cpuS = rows.reduce((sum, r) => sum + r.cpu * seconds, 0);
  const rssMiB = [...after.processes.values()].reduce((sum, p) => sum + p.rssKiB, 0) / 1024;
  const hwmMiB = [...after.processes.values()].reduce((sum, p) => sum + p.hwmKiB, 0) / 1024;
  const pssMiB = [...after.processes.values()].reduce((sum, p) => sum + p.pssKiB, 0) / 1024;
  const anonMiB = [...after.processes.values()].reduce((sum, p) => sum + p.anonKiB, 0) / 1024;
  return { seconds: round(seconds), cpuS: round(cpuS), rssMiB: round(rssMiB), hwmMiB: round(hwmMiB), pssMiB: round(pssMiB), anonMiB: round(anonMiB), processes: rows };
}

const sumThreads = (proc, field) => [...proc.threads.values()].reduce((sum, t) => sum + t[field], 0);
const round = (n) => Math.round(n * 1000) / 1000;

/**
 * Logical CPUs ordered so that hyper-thread siblings sit next to each other, then split into
 * the given group sizes: each group gets whole cores where it can, never half of one shared.
 */
export function cpuLayout(sizes) {
  const cpus = readdirSync('/sys/devices/system/cpu').filter((n) => /^cpu\d+$/.test(n)).map((n) => Number(n.slice(3)));
  const online = cpus.filter((cpu) => read(`/sys/devices/system/cpu/cpu${cpu}/online`).trim() !== '0');
  const coreOf = (cpu) => `${read(`/sys/devices/system/cpu/cpu${cpu}/topology/physical_package_id`).trim()}:${read(`/sys/devices/system/cpu/cpu${cpu}/topology/core_id`).trim()}`;
  const ordered = online.sort((a, b) => coreKey(coreOf(a)) - coreKey(coreOf(b)) || a - b);
  const siblings = online.map((cpu) => read(`/sys/devices/system/cpu/cpu${cpu}/topology/thread_siblings_list`).trim());
  const groups = [];
  let at = 0;
  for (const size of sizes) {
    groups.push(ordered.slice(at, at + size).join(','));
    at += size;
  }
  return { groups, ordered, threadsPerCore: Math.max(...siblings.map((s) => expand(s).length)) };
}

const coreKey = (key) => {
  const [pkg, core] = key.split(':').map(Number);
  return pkg * 100000 + core;
};
const expand = (list) => list.split(',').flatMap((part) => {
  const [a, b] = part.split('-').map(Number);
  return b === undefined ? [a] : Array.from({ length: b - a + 1 }, (_, i) => a + i);
});
