import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import {
  Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler,
  type CompiledQuery, type DatabaseConnection, type Driver, type QueryResult,
} from 'kysely';
import type { Database } from './schema.js';

/**
 * The embedded store's reads for the console and reports, off the event loop (issue 22):
 * better-sqlite3 runs a query to its end on the thread that calls it, so a 30-day report on the
 * main thread held every request behind it. Here each query goes to a worker thread with its own
 * read-only connection; in WAL mode readers never wait for the writer, and they see everything
 * committed when their query starts (the routes write their own queue first). The worker's code is
 * a string, so the same module runs from dist/ and from the TypeScript sources under test.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
const statements = new Map();
parentPort.on('message', ({ id, sql, parameters }) => {
  try {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql);
      if (!statement.reader) throw new Error('the read connection only reads');
      if (statements.size >= 256) statements.delete(statements.keys().next().value);
      statements.set(sql, statement);
    }
    parentPort.postMessage({ id, rows: statement.all(parameters) });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
`;

interface Pending {
  resolve: (rows: unknown[]) => void;
  reject: (error: Error) => void;
}

interface Reader {
  worker: Worker;
  pending: Map<number, Pending>;
}

/**
 * A few workers, each with a read connection; a query goes to the one with the fewest waiting.
 * They start with the first query (an instance that serves no console starts none: each is a V8
 * isolate of about 10 MB).
 */
class ReaderPool {
  private readers: Reader[] = [];
  private nextId = 0;
  private closed = false;
  private readonly driver = createRequire(import.meta.url).resolve('better-sqlite3');

  constructor(
    private readonly file: string,
    private readonly size: number,
  ) {}

  private spawn(): Reader {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file: this.file, driver: this.driver } });
    worker.unref();
    const reader: Reader = { worker, pending: new Map() };
    worker.on('message', ({ id, rows, error }: { id: number; rows?: unknown[]; error?: string }) => {
      const pending = reader.pending.get(id);
      if (!pending) return;
      reader.pending.delete(id);
      if (reader.pending.size === 0) worker.unref();
      if (error !== undefined) pending.reject(new Error(error));
      else pending.resolve(rows!);
    });
    const fail = (error: Error) => {
      for (const pending of reader.pending.values()) pending.reject(error);
      reader.pending.clear();
      // A worker that died (it should not) is replaced, so later reads still have somewhere to go.
      if (!this.closed) this.readers = this.readers.map((r) => (r === reader ? this.spawn() : r));
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the SQLite read worker stopped (${code})`)));
    return reader;
  }

  run(sql: string, parameters: readonly unknown[]): Promise<unknown[]> {
    if (this.closed) return Promise.reject(new Error('the SQLite read connections are closed'));
    while (this.readers.length < this.size) this.readers.push(this.spawn());
    const reader = this.readers.reduce((best, r) => (r.pending.size < best.pending.size ? r : best));
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      reader.pending.set(id, { resolve, reject });
      // Held while it has work, so a waiting query keeps the process alive; idle workers do not.
      reader.worker.ref();
      reader.worker.postMessage({ id, sql, parameters });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.readers.map((r) => r.worker.terminate()));
  }
}

class ReaderConnection implements DatabaseConnection {
  constructor(private readonly pool: ReaderPool) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    return { rows: (await this.pool.run(compiled.sql, compiled.parameters)) as R[] };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the SQLite read connections do not stream');
  }
}

class ReaderDriver implements Driver {
  private pool: ReaderPool | undefined;
  private connection: ReaderConnection | undefined;

  constructor(
    private readonly file: string,
    private readonly size: number,
  ) {}

  async init(): Promise<void> {
    this.pool = new ReaderPool(this.file, this.size);
    this.connection = new ReaderConnection(this.pool);
  }

  /** Every caller shares one connection object: the pool spreads its queries over the workers. */
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.connection!;
  }

  beginTransaction(): Promise<void> {
    return Promise.reject(new Error('the SQLite read connections run no transactions'));
  }

  commitTransaction = this.beginTransaction;
  rollbackTransaction = this.beginTransaction;

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    await this.pool?.close();
  }
}

/** Reads (selects only) on the SQLite file at `file`, run by `size` worker threads. */
export function openSqliteReader(file: string, size = 2): Kysely<Database> {
  return new Kysely<Database>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new ReaderDriver(file, size),
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
}
