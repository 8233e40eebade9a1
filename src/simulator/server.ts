import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SimulatorOptionsConfig } from '../contracts/simulator-options.js';
import type { PromptCache } from './prompt-cache.js';
import type { SimBatches } from './batch-store.js';

/** A request as the simulator received it; tests assert on exactly what the gateway sent. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
  /** The body's text exactly as it arrived (pass-through tests compare bytes). */
  text?: string;
}

export interface SimRequest extends RecordedRequest {
  url: URL;
  /** Aborted when the client (the gateway) goes away. */
  signal: AbortSignal;
  /** This simulator's prompt cache: repeated long prefixes are reported as cached tokens. */
  promptCache: PromptCache;
  /** This simulator's uploaded files and batches (issue 46), in memory: they live as long as the server. */
  batches: SimBatches;
}

/** The vendor-specific part of a simulator: returns false when no route matched. */
export type SimHandler = (req: SimRequest, res: SimResponse) => Promise<boolean>;

/** Tries handlers in order until one serves the request. */
export const firstMatching =
  (...handlers: SimHandler[]): SimHandler =>
  async (req, res) => {
    for (const handler of handlers) if (await handler(req, res)) return true;
    return false;
  };

/** How a vendor renders an error body for a given status (its documented envelope). */
export type SimErrorBody = (status: number, message: string) => unknown;

export interface SimulatorSpec {
  vendor: string;
  handle: SimHandler;
  errorBody: SimErrorBody;
}

/**
 * A simulator's module, imported on its first request: a gateway whose channels all have real
 * upstreams never loads the simulators, and one on the embedded defaults only those it uses.
 */
export type SimulatorLoader = () => Promise<SimulatorSpec>;

/** Imports once, however many servers and requests ask. */
export function lazySimulator(load: () => Promise<SimulatorSpec>): SimulatorLoader {
  let loading: Promise<SimulatorSpec> | undefined;
  return () => (loading ??= load());
}

export interface RunningSimulator {
  readonly url: string;
  readonly options: SimulatorOptionsConfig;
  /** Requests received, oldest first (the last 200). */
  readonly requests: RecordedRequest[];
  /** Number of requests whose client disconnected before the response ended. */
  readonly aborted: { count: number };
  setOptions(options: SimulatorOptionsConfig): void;
  close(): Promise<void>;
}

const MAX_RECORDED = 200;

/** Response helpers that apply the simulator's pacing and fault options. */
export class SimResponse {
  constructor(
    readonly raw: ServerResponse,
    readonly options: SimulatorOptionsConfig,
    private readonly vendor: string,
    private readonly signal: AbortSignal,
  ) {}

  json(status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    this.raw.writeHead(status, { 'content-type': 'application/json', 'x-simulator': this.vendor, ...headers });
    this.raw.end(text);
  }

  /** `body` with its vector slots filled in the simulator's vector threads (vector-pool.ts), off the event loop. */
  async jsonWithVectors(status: number, body: unknown, headers: Record<string, string> = {}): Promise<void> {
    // Imported here, not at the top: only an embedding answer needs the vector threads (an idle gateway loads no simulator module).
    const { renderWithVectors } = await import('./vector-pool.js');
    const bytes = await renderWithVectors(body);
    this.raw.writeHead(status, { 'content-type': 'application/json', 'content-length': String(bytes.length), 'x-simulator': this.vendor, ...headers });
    this.raw.end(bytes);
  }

  bytes(status: number, body: Buffer, contentType: string): void {
    this.raw.writeHead(status, { 'content-type': contentType, 'content-length': String(body.length), 'x-simulator': this.vendor });
    this.raw.end(body);
  }

  /**
   * Streams SSE frames (already formatted text, one per event) with the configured first-token
   * delay and pace; `cut_stream_after` drops the connection mid-way, as a failing upstream would.
   */
  async sse(frames: readonly string[]): Promise<void> {
    this.raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-simulator': this.vendor });
    this.raw.flushHeaders();
    const delay = this.options.first_token_delay_ms ?? 0;
    const pace = this.options.tokens_per_second ? 1000 / this.options.tokens_per_second : 0;
    const cutAfter = this.options.cut_stream_after;
    if (delay > 0) await sleep(delay, undefined, { signal: this.signal }).catch(() => undefined);
    for (let i = 0; i < frames.length; i++) {
      if (this.signal.aborted) return;
      if (cutAfter !== undefined && i >= cutAfter) {
        // Let the frames already written reach the client first, as a connection dying mid-stream would.
        await sleep(50);
        this.raw.socket?.destroy();
        return;
      }
      if (!this.raw.write(frames[i]!)) await new Promise((r) => this.raw.once('drain', r));
      if (pace > 0 && i < frames.length - 1) await sleep(pace, undefined, { signal: this.signal }).catch(() => undefined);
    }
    this.raw.end();
  }
}

/** Starts one vendor simulator on 127.0.0.1 (port 0 unless given); a loader's module comes with the first request. */
export async function startSimulator(specOrLoader: SimulatorSpec | SimulatorLoader, initial: SimulatorOptionsConfig = {}, port = 0): Promise<RunningSimulator> {
  const load = typeof specOrLoader === 'function' ? specOrLoader : () => Promise.resolve(specOrLoader);
  let spec = typeof specOrLoader === 'function' ? undefined : specOrLoader;
  let options: SimulatorOptionsConfig = { ...initial };
  let faultsServed = 0;
  const requests: RecordedRequest[] = [];
  const aborted = { count: 0 };
  /** Made at the first request, with the vendor's module (a simulator loads nothing until then). */
  let promptCache: PromptCache | undefined;
  let batches: SimBatches | undefined;

  const server: Server = createServer((req, res) => {
    void serve(req, res);
  });
  server.keepAliveTimeout = 65_000;

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableEnded) {
        aborted.count++;
        controller.abort();
      }
    });
    try {
      spec ??= await load();
      const url = new URL(req.url ?? '/', 'http://simulator');
      const text = await readBodyText(req);
      // A multipart upload (a batch's input file) is read by its route from `text`.
      const body = String(req.headers['content-type'] ?? '').startsWith('multipart/form-data') ? undefined : parseJsonText(text);
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')])),
        body,
        ...(text ? { text } : {}),
      };
      requests.push(recorded);
      if (requests.length > MAX_RECORDED) requests.shift();
      const response = new SimResponse(res, options, spec.vendor, controller.signal);

      if (options.fault_status && (options.fault_times === undefined || faultsServed < options.fault_times)) {
        faultsServed++;
        const headers: Record<string, string> = {};
        if (options.fault_retry_after_s !== undefined) headers['retry-after'] = String(options.fault_retry_after_s);
        response.json(options.fault_status, spec.errorBody(options.fault_status, 'Simulated upstream failure'), headers);
        return;
      }
      if (body === INVALID_JSON) {
        response.json(400, spec.errorBody(400, 'Request body is not valid JSON'));
        return;
      }
      promptCache ??= new (await import('./prompt-cache.js')).PromptCache();
      batches ??= new (await import('./batch-store.js')).SimBatches();
      const handled = await spec.handle({ ...recorded, url, signal: controller.signal, promptCache, batches }, response);
      if (!handled) response.json(404, spec.errorBody(404, `No route for ${recorded.method} ${recorded.path}`));
    } catch (error) {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        const message = `Simulator error: ${(error as Error).message}`;
        res.end(JSON.stringify(spec ? spec.errorBody(500, message) : { error: { message } }));
      } else {
        res.destroy();
      }
    }
  }

  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: actualPort } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${actualPort}`,
    get options() {
      return options;
    },
    requests,
    aborted,
    setOptions(next) {
      options = { ...next };
      faultsServed = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const INVALID_JSON = Symbol('invalid-json');

async function readBodyText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJsonText(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return INVALID_JSON;
  }
}
