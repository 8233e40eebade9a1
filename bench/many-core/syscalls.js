// Where the gateway's main threads wait during a run: /proc/<pid>/syscall sampled every few ms
// for every process of the tree. A worker idle in epoll_wait has no work; one in clock_nanosleep
// is in SQLite's busy handler (another process holds the write lock), its event loop stopped.
import { readFileSync } from 'node:fs';

const NAMES = { 0: 'read', 1: 'write', 7: 'poll', 17: 'pread64', 18: 'pwrite64', 20: 'writev', 35: 'nanosleep', 44: 'sendto', 45: 'recvfrom', 72: 'fcntl', 74: 'fsync', 75: 'fdatasync', 202: 'futex', 230: 'clock_nanosleep', 232: 'epoll_wait', 281: 'epoll_pwait', 441: 'epoll_pwait2' };

function state(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/syscall`, 'utf8').trim();
    if (text === 'running') return 'running';
    const number = text.split(' ')[0];
    return NAMES[number] ?? `syscall ${number}`;
  } catch {
    return 'unreadable';
  }
}

/** Starts sampling the main thread of each pid; stop() returns each state's share of the samples. */
export function sampleSyscalls(pids, everyMs = 5) {
  const counts = new Map();
  let samples = 0;
  const timer = setInterval(() => {
    for (const pid of pids) {
      const name = state(pid);
      counts.set(name, (counts.get(name) ?? 0) + 1);
      samples++;
    }
  }, everyMs);
  return () => {
    clearInterval(timer);
    return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]).map(([name, n]) => [name, Math.round((n / Math.max(1, samples)) * 1000) / 1000]));
  };
}
