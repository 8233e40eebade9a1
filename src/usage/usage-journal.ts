import { appendFileSync, closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { UsageEvent } from './usage-recorder.js';

const SEGMENT = /^seg-(\d+)\.ndjson$/;
const DEFAULT_PROBE_MS = 1_000;

/** Told once when journal writes start failing and once when they succeed again: one log line per episode. */
export interface JournalHealthOptions {
  onFailing?: (error: unknown) => void;
  onRecovered?: () => void;
  /** How often a failing journal tries to write again. */
  probeMs?: number;
}

/**
 * The usage recorder's write-ahead journal (issue 13 item 11): every event is appended to a local
 * file the moment it is recorded, before it waits for the next batch to the database, so a crash
 * (`kill -9`) loses nothing that was answered: the next start replays what the database lacks.
 * Appends of one turn of the event loop go out as one write(2) to the page cache (no fsync):
 * they survive the process, not the machine; an event is recorded when its response is over, so
 * the only window is the rest of that turn. Each instance has its own folder (`<host>-<pid>-<random>`); each flush rotates to a new segment
 * file and deletes the older ones once their events are in the database.
 */
export class UsageJournal {
  private fd: number;
  private segment = 0;
  private pending = '';
  private scheduled = false;
  /** Callers waiting for the pending lines to reach the file (answers held until their usage is journaled). */
  private waiting: Array<() => void> = [];
  private closed = false;
  /** While writes fail (a full disk): the timer that probes for room again. */
  private probe: NodeJS.Timeout | undefined;

  constructor(
    private readonly dir: string,
    private readonly health: JournalHealthOptions = {},
  ) {
    mkdirSync(dir, { recursive: true });
    LIVE.add(dir);
    this.fd = openSync(join(dir, segmentName(this.segment)), 'a');
  }

  /** A new folder for this instance under `<dataDir>/usage-journal`, named by `instanceName()`. */
  static folderFor(dataDir: string, name = UsageJournal.instanceName()): string {
    return join(dataDir, 'usage-journal', name);
  }

  /** `<host>-<pid>-<random>`: also the instance's id among the others in Redis (db/instance-registry.ts). */
  static instanceName(): string {
    return `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  }

  append(event: UsageEvent): void {
    if (this.closed) {
      // A stream cut by the shutdown deadline ends after the recorder closed: written at once, replayed at the next start.
      mkdirSync(this.dir, { recursive: true });
      appendFileSync(join(this.dir, segmentName(this.segment)), JSON.stringify(event) + '\n');
      return;
    }
    this.pending += JSON.stringify(event) + '\n';
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.writePending);
    }
  }

  /** Appends, and calls `written` once the line is in the file: one write for everything appended in this turn. */
  appendThen(event: UsageEvent, written: () => void): void {
    this.append(event);
    if (this.closed) written();
    else this.waiting.push(written);
  }

  private readonly writePending = (): void => {
    this.scheduled = false;
    if (this.pending !== '' && !this.closed) {
      const text = this.pending;
      this.pending = '';
      try {
        writeSync(this.fd, text);
        if (this.probe) this.recovered();
      } catch (error) {
        // A full disk: these events still go to the database in their batch, but a crash would lose
        // them, so the gateway takes no new billable work until the journal writes again (issue 34).
        this.failed(error);
      }
    }
    const waiting = this.waiting;
    this.waiting = [];
    for (const written of waiting) written();
  };

  /** Whether the last write failed and no probe has written since (readiness and admission read it). */
  get isFailing(): boolean {
    return this.probe !== undefined;
  }

  private failed(error: unknown): void {
    if (this.probe || this.closed) return;
    this.probe = setInterval(this.probeForRoom, this.health.probeMs ?? DEFAULT_PROBE_MS);
    this.probe.unref();
    this.health.onFailing?.(error);
  }

  private recovered(): void {
    clearInterval(this.probe);
    this.probe = undefined;
    this.health.onRecovered?.();
  }

  /**
   * Writes a blank line (skipped on replay) to the next segment, always the same name, so a long
   * outage leaves no trail of files; once it is written that segment is the journal's.
   */
  private readonly probeForRoom = (): void => {
    let fd: number | undefined;
    try {
      fd = openSync(join(this.dir, segmentName(this.segment + 1)), 'a');
      writeSync(fd, '\n');
    } catch {
      if (fd !== undefined) closeSync(fd);
      return;
    }
    closeSync(this.fd);
    this.fd = fd;
    this.segment += 1;
    this.recovered();
  };

  /** Starts a new segment; returns the number of the last one before it (everything queued so far is in it or older). */
  rotate(): number {
    this.writePending();
    const done = this.segment;
    closeSync(this.fd);
    this.segment += 1;
    this.fd = openSync(join(this.dir, segmentName(this.segment)), 'a');
    return done;
  }

  /** The events of segments up to `segment` are in the database: their files go. */
  dropThrough(segment: number): void {
    for (const name of readdirSync(this.dir)) {
      const match = SEGMENT.exec(name);
      if (match && Number(match[1]) <= segment) unlinkSync(join(this.dir, name));
    }
  }

  close(removeFolder: boolean): void {
    this.writePending();
    clearInterval(this.probe);
    this.closed = true;
    closeSync(this.fd);
    LIVE.delete(this.dir);
    if (removeFolder) rmSync(this.dir, { recursive: true, force: true });
  }

  /**
   * Journals left by earlier processes of this host (crashed, or killed before their last flush):
   * a folder whose process is gone, or whose pid is ours (a container restarts as pid 1) but that
   * no live instance of this process writes (tests run several in one process). Returns
   * their events, oldest first, and a function that deletes the folders once the events are stored.
   */
  static leftBehind(dataDir: string): { events: UsageEvent[]; folders: string[]; done: () => void } {
    const base = join(dataDir, 'usage-journal');
    let folders: string[];
    try {
      folders = readdirSync(base);
    } catch {
      return { events: [], folders: [], done: () => undefined };
    }
    const host = hostname();
    const orphaned = folders.filter((name) => {
      const parts = name.split('-');
      if (parts.length < 3 || parts.slice(0, -2).join('-') !== host) return false;
      const pid = Number(parts.at(-2));
      return pid === process.pid ? !LIVE.has(join(base, name)) : !isAlive(pid);
    });
    const events: UsageEvent[] = [];
    for (const folder of orphaned) {
      const segments = readdirSync(join(base, folder))
        .filter((name) => SEGMENT.test(name))
        .sort((a, b) => Number(SEGMENT.exec(a)![1]) - Number(SEGMENT.exec(b)![1]));
      for (const segment of segments) {
        for (const line of readFileSync(join(base, folder, segment), 'utf8').split('\n')) {
          // A line cut by the crash is the only one that can be partial: it is skipped.
          if (line) {
            try {
              events.push(JSON.parse(line) as UsageEvent);
            } catch {
              /* torn last line */
            }
          }
        }
      }
    }
    return { events, folders: orphaned, done: () => orphaned.forEach((folder) => rmSync(join(base, folder), { recursive: true, force: true })) };
  }
}

/** Folders written by instances running in this process. */
const LIVE = new Set<string>();

const segmentName = (n: number) => `seg-${String(n).padStart(8, '0')}.ndjson`;

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
