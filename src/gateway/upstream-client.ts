import type { Dispatcher } from 'undici';
import { Agent } from './undici-agent.js';
import type { Channel } from './channel.js';
import type { UpstreamCall } from '../contracts/upstream-call.js';
import { GatewayError, isGatewayError } from '../errors.js';
import { NEVER_CANCELLED, type Cancellation } from './cancellation.js';
import { UpstreamBody } from './upstream-body.js';

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: UpstreamBody;
}

/** The most bytes of an upstream body read whole (GATEWAY_MAX_UPSTREAM_BODY_BYTES): a large batch of embeddings fits. */
export const DEFAULT_MAX_UPSTREAM_BODY_BYTES = 256 * 1024 * 1024;
/** An error body is read this far at most: enough for any vendor's message. */
const ERROR_BODY_BYTES = 64 * 1024;

/** Serialised request bodies longer than this (about 1 MB) reach undici in a later turn of the event loop. */
const LARGE_BODY_CHARS = 1024 * 1024;

/**
 * Sends upstream calls over pooled keep-alive connections: one undici Agent per connect timeout
 * (so each channel's connect timeout holds), pools per origin inside it. The dispatcher is
 * passed per call, never set globally. Calls go through undici's dispatch API straight into an
 * UpstreamBody: no Readable stream, AbortController or promise per chunk on the hot path.
 */
export class UpstreamClient {
  private readonly agents = new Map<number, Agent>();
  private readonly bases = new Map<string, { origin: string; pathname: string }>();
  /** Told of every attempt: seconds to the response headers, and '2xx'…'5xx' or 'error' (metrics). */
  observer: ((channel: string, seconds: number, outcome: string) => void) | undefined;

  constructor(private readonly options: { connections?: number | null; maxBodyBytes?: number | undefined } = {}) {}

  private dispatcherFor(channel: Channel): Agent {
    return this.agent(channel.timeouts.connectMs);
  }

  /** The shared agent of this connect timeout: also what upstream MCP calls go through. */
  agent(connectMs: number): Agent {
    let agent = this.agents.get(connectMs);
    if (!agent) {
      agent = new Agent({
        // No cap by default: long streams must not queue behind each other for a connection.
        connections: this.options.connections ?? null,
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 600_000,
        pipelining: 1,
        connect: { timeout: connectMs },
      });
      this.agents.set(connectMs, agent);
    }
    return agent;
  }

  /** A channel's base URL split once into origin and path prefix (no URL parsing per request). */
  private baseOf(channel: Channel): { origin: string; pathname: string } {
    let base = this.bases.get(channel.baseUrl);
    if (!base) {
      const url = new URL(channel.baseUrl);
      base = { origin: url.origin, pathname: url.pathname.replace(/\/$/, '') };
      this.bases.set(channel.baseUrl, base);
    }
    return base;
  }

  /**
   * Resolves with the status and headers once they arrive; the body follows through the
   * returned UpstreamBody. The channel's total timeout covers the whole exchange, body included.
   * `traceHeaders` (tracing on) carry the attempt's `traceparent`.
   */
  send(channel: Channel, call: UpstreamCall, cancel: Cancellation = NEVER_CANCELLED, traceHeaders?: Readonly<Record<string, string>>): Promise<UpstreamResponse> {
    if (channel.provider.routeCall) call = channel.provider.routeCall(call, channel.credentials);
    const base = this.baseOf(channel);
    const path = base.pathname + call.path + (call.query ? `?${new URLSearchParams(call.query).toString()}` : '');
    const headers: Record<string, string> = { ...channel.headers, ...call.headers };
    let body: string | undefined;
    if (call.body !== undefined) {
      body = typeof call.body === 'string' ? call.body : JSON.stringify(call.body);
      headers['content-type'] ??= 'application/json';
    }
    // Before authorizing: a signer that covers the headers sees it.
    if (call.stream) headers.accept ??= 'text/event-stream';
    return this.pipeline({ channel, origin: base.origin, path, method: call.method, headers, body, auth: call.auth, cancel, traceHeaders });
  }

  /** The steps every call takes to the wire, composed once (undici's interceptor shape): authorize, trace, dispatch. */
  private readonly pipeline: Step = authorizing(tracing(yieldingLargeBodies((request) => this.dispatch(request))));

  private dispatch({ channel, origin, path, method, headers, body, cancel }: OutgoingRequest): Promise<UpstreamResponse> {
    return new Promise((resolve, reject) => {
      const exchange = new Exchange(channel, cancel, this.observer, resolve, reject, this.options.maxBodyBytes ?? DEFAULT_MAX_UPSTREAM_BODY_BYTES);
      this.dispatcherFor(channel).dispatch(
        {
          origin,
          path,
          method,
          headers,
          body,
          // The exchange keeps these with its own timers: undici's coarse timer wheel fired a
          // first_byte_ms of 800 at ~650 ms (issue 14).
          headersTimeout: 0,
          bodyTimeout: 0,
        },
        exchange,
      );
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((agent) => agent.close()));
  }
}

/** One call on its way to the wire: what each step of the pipeline sees and may add headers to. */
interface OutgoingRequest {
  channel: Channel;
  origin: string;
  /** The base URL's path prefix, the call's path and its query. */
  path: string;
  method: UpstreamCall['method'];
  headers: Record<string, string>;
  body: string | undefined;
  auth: UpstreamCall['auth'];
  cancel: Cancellation;
  /** The attempt's `traceparent` (tracing on). */
  traceHeaders: Readonly<Record<string, string>> | undefined;
}

type Step = (request: OutgoingRequest) => Promise<UpstreamResponse>;

/**
 * The vendor's `authorize` (a static key, a minted token, a request signature) as one step: its
 * headers go on after the channel's and the call's own.
 */
function authorizing(next: Step): Step {
  return (request) => {
    const { channel, origin, path, method, headers, body, auth } = request;
    // The URL is parsed only for a vendor that signs it: a static key never reads it (the hot path).
    let url: URL | undefined;
    const signable = { method, body: body ?? '', headers, auth, get url() { return (url ??= new URL(origin + path)); } };
    return channel.provider.authorize(channel.credentials, signable, Date.now()).then((credentials) => {
      Object.assign(headers, credentials);
      return next(request);
    });
  };
}

/** Trace headers after authorizing: a request signature never covers them. */
function tracing(next: Step): Step {
  return (request) => {
    if (request.traceHeaders) Object.assign(request.headers, request.traceHeaders);
    return next(request);
  };
}

/** A large body was just serialised: undici's copy of it gets a turn of its own (the event-loop watchdog, issue 13). */
function yieldingLargeBodies(next: Step): Step {
  return (request) => {
    if (request.body === undefined || request.body.length <= LARGE_BODY_CHARS) return next(request);
    return new Promise<void>((resolve) => setImmediate(resolve)).then(() => next(request));
  };
}

/**
 * One upstream exchange as undici's dispatch handler: resolves the caller's promise at the
 * response headers, then feeds the body. One timer carries the channel's total timeout; the
 * caller's cancellation aborts the exchange at any point, before or after the headers.
 */
class Exchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private body: UpstreamBody | undefined;
  private readonly timer: NodeJS.Timeout;
  /** Until the response headers: the channel's first_byte_ms. */
  private readonly firstByteTimer: NodeJS.Timeout;
  /** After the headers: idle_ms between reads. Reads only stamp `lastReadAt`; the timer, when it fires, re-arms for what is left. */
  private idleTimer: NodeJS.Timeout | undefined;
  private lastReadAt = 0;
  private readonly stopListening: () => void;
  private readonly sentAt = performance.now();
  private abortReason: Error | undefined;

  constructor(
    private readonly channel: Channel,
    cancel: Cancellation,
    private readonly observer: UpstreamClient['observer'],
    private readonly resolve: (response: UpstreamResponse) => void,
    private readonly reject: (error: unknown) => void,
    private readonly maxBodyBytes: number,
  ) {
    this.timer = setTimeout(() => this.abort(new GatewayError('GW_UPSTREAM_TIMEOUT', 'The upstream provider timed out')), channel.timeouts.totalMs);
    this.firstByteTimer = setTimeout(() => this.abort(new GatewayError('GW_UPSTREAM_TIMEOUT', 'The upstream provider did not answer in time')), channel.timeouts.firstByteMs);
    this.stopListening = cancel.onCancel(() => this.abort(Object.assign(new Error('The client closed the connection'), { name: 'AbortError' })));
  }

  private abort(reason: Error): void {
    this.abortReason ??= reason;
    // Before undici starts the request there is nothing to abort yet: onRequestStart does it.
    this.controller?.abort(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.abortReason) controller.abort(this.abortReason);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return;
    clearTimeout(this.firstByteTimer);
    this.lastReadAt = performance.now();
    this.armIdle(this.channel.timeouts.idleMs);
    this.body = new UpstreamBody(controller, this.maxBodyBytes);
    this.observer?.(this.channel.name, (performance.now() - this.sentAt) / 1000, `${Math.floor(statusCode / 100)}xx`);
    this.resolve({ status: statusCode, headers, body: this.body });
  }

  private armIdle(delayMs: number): void {
    this.idleTimer = setTimeout(() => {
      const quiet = performance.now() - this.lastReadAt;
      const left = this.channel.timeouts.idleMs - quiet;
      if (left > 1) this.armIdle(left);
      else this.abort(new GatewayError('GW_UPSTREAM_TIMEOUT', 'The upstream stream went silent for too long'));
    }, delayMs);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.lastReadAt = performance.now();
    this.body?.push(chunk);
  }

  onResponseEnd(): void {
    this.release();
    this.body?.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.release();
    const failure = this.abortReason ?? error;
    if (this.body) {
      this.body.fail(failure);
      return;
    }
    this.observer?.(this.channel.name, (performance.now() - this.sentAt) / 1000, 'error');
    this.reject(isGatewayError(failure) ? failure : toTransportError(failure, this.channel));
  }

  private release(): void {
    clearTimeout(this.timer);
    clearTimeout(this.firstByteTimer);
    clearTimeout(this.idleTimer);
    this.stopListening();
  }
}

/**
 * Connection-level failures, worded without the upstream's address. The connect timeout is the
 * only undici timer left on: headers and body are timed by the Exchange, whose timeouts arrive
 * here as GatewayErrors already.
 */
export function toTransportError(error: unknown, channel: Channel): GatewayError {
  if ((error as { code?: string }).code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new GatewayError('GW_UPSTREAM_TIMEOUT', 'The upstream provider timed out', { cause: error });
  }
  if ((error as Error).name === 'AbortError') {
    return new GatewayError('GW_UPSTREAM_ERROR', 'The upstream request was aborted', { cause: error });
  }
  return new GatewayError('GW_UPSTREAM_UNAVAILABLE', 'The upstream provider could not be reached', { cause: error });
}

/** Reads an upstream error body as JSON when it is JSON (its first 64 KiB; the rest is not read), for fromUpstreamError. */
export async function readErrorBody(body: UpstreamBody): Promise<unknown> {
  const text = await body.head(ERROR_BODY_BYTES).catch(() => '');
  const bounded = text.slice(0, ERROR_BODY_BYTES);
  try {
    return JSON.parse(bounded) as unknown;
  } catch {
    return bounded;
  }
}
