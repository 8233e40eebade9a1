// The kernel's TCP counters that tell a network-level wait from a wait in a process: a full
// accept queue (ListenOverflows/ListenDrops), segments dropped while a socket was busy
// (TCPBacklogDrop), retransmission timeouts (TCPTimeouts: ≥ 200 ms each, 1 s for a SYN) and
// retransmitted segments. Machine-wide: read before and after a run, nothing else running.
import { readFileSync } from 'node:fs';

const WANTED = ['ListenOverflows', 'ListenDrops', 'TCPBacklogDrop', 'TCPTimeouts', 'TCPSynRetrans', 'RetransSegs', 'TCPReqQFullDrop', 'TCPAbortOnOverflow'];

/** name → value of the wanted counters in /proc/net/netstat and /proc/net/snmp (header line, value line pairs). */
export function readTcpCounters() {
  const counters = {};
  for (const file of ['/proc/net/netstat', '/proc/net/snmp']) {
    let lines;
    try {
      lines = readFileSync(file, 'utf8').trim().split('\n');
    } catch {
      continue;
    }
    for (let i = 0; i + 1 < lines.length; i += 2) {
      const names = lines[i].split(/\s+/).slice(1);
      const values = lines[i + 1].split(/\s+/).slice(1);
      names.forEach((name, j) => {
        if (WANTED.includes(name)) counters[name] = Number(values[j]);
      });
    }
  }
  return counters;
}

/** The counters that moved between two readings. */
export function tcpCountersMoved(before, after) {
  return Object.fromEntries(Object.entries(after).filter(([name, value]) => value !== before[name]).map(([name, value]) => [name, value - (before[name] ?? 0)]));
}
