import { Agent, type Dispatcher } from 'undici';
import type { Channel } from './channel.js';
import type { UpstreamCall } from '../providers/types.js';
import { GatewayError } from '../errors.js';

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

/**
 * Sends upstream calls over pooled keep-alive connections: one undici Agent per connect timeout
 * (so each channel's connect timeout holds), pools per origin inside it. The dispatcher is
 * passed per call, never set globally.
 */
export class UpstreamClient {
  private readonly agents = new Map<number, Agent>();
  private readonly bases = new Map<string, { origin: string; pathname: string }>();
  /** Told of every attempt: seconds to the response headers, and '2xx'…'5xx' or 'error' (metrics). */
  observer: ((channel: string, seconds: number, outcome: string) => void) | undefined;

  constructor(private readonly options: { connections?: number | null } = {}) {}

  private dispatcherFor(channel: Channel): Agent {
    let agent = this.agents.get(channel.timeouts.connectMs);
    if (!agent) {
      agent = new Agent({
        // No cap by default: long streams must not queue behind each other for a connection.
        connections: this.options.connections ?? null,
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 600_000,
        pipelining: 1,
        connect: { timeout: channel.timeouts.connectMs },
      });
      this.agents.set(channel.timeouts.connectMs, agent);
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

  async send(channel: Channel, call: UpstreamCall, signal: AbortSignal): Promise<UpstreamResponse> {
    const base = this.baseOf(channel);
    const path = base.pathname + call.path + (call.query ? `?${new URLSearchParams(call.query).toString()}` : '');
    const headers: Record<string, string> = { ...channel.headers, ...call.headers };
    let body: string | undefined;
    if (call.body !== undefined) {
      body = typeof call.body === 'string' ? call.body : JSON.stringify(call.body);
      headers['content-type'] ??= 'application/json';
    }
    const provider = channel.provider;
    if (call.auth === 'request-signature' && provider.signRequest) {
      const url = new URL(base.origin + path);
      Object.assign(headers, provider.signRequest(channel.credentials, { method: call.method, url, body: body ?? '' }, Date.now()));
    } else {
      Object.assign(headers, provider.authHeaders(channel.credentials, Math.floor(Date.now() / 1000)));
    }
    if (call.stream) headers.accept ??= 'text/event-stream';
    // One controller per exchange carries both the caller's abort and the total timeout (cheaper
    // than AbortSignal.any/timeout per request); the body is tied to it, so the timeout covers
    // the whole stream, and the timer and listener go when the body closes.
    const controller = new AbortController();
    const onCallerAbort = () => controller.abort(signal.reason);
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener('abort', onCallerAbort, { once: true });
    let isTotalTimeout = false;
    const timer = setTimeout(() => {
      isTotalTimeout = true;
      controller.abort(new Error('total timeout'));
    }, channel.timeouts.totalMs);
    const release = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onCallerAbort);
    };
    const sentAt = performance.now();
    try {
      const response = await this.dispatcherFor(channel).request({
        origin: base.origin,
        path,
        method: call.method,
        headers,
        body,
        signal: controller.signal,
        headersTimeout: channel.timeouts.firstByteMs,
        bodyTimeout: channel.timeouts.idleMs,
      });
      response.body.once('close', release);
      this.observer?.(channel.name, (performance.now() - sentAt) / 1000, `${Math.floor(response.statusCode / 100)}xx`);
      return { status: response.statusCode, headers: response.headers, body: response.body };
    } catch (error) {
      release();
      this.observer?.(channel.name, (performance.now() - sentAt) / 1000, 'error');
      throw toTransportError(isTotalTimeout ? Object.assign(new Error('total timeout'), { code: 'UND_ERR_HEADERS_TIMEOUT' }) : error, channel);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((agent) => agent.close()));
  }
}

/** Connection-level failures, worded without the upstream's address. */
export function toTransportError(error: unknown, channel: Channel): GatewayError {
  const code = (error as { code?: string }).code ?? '';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new GatewayError('GW_UPSTREAM_TIMEOUT', `The upstream for channel '${channel.name}' timed out`, { cause: error });
  }
  if ((error as Error).name === 'AbortError') {
    return new GatewayError('GW_UPSTREAM_ERROR', 'The upstream request was aborted', { cause: error });
  }
  return new GatewayError('GW_UPSTREAM_UNAVAILABLE', `The upstream for channel '${channel.name}' could not be reached`, { cause: error });
}

/** Reads an upstream error body as JSON when it is JSON (bounded), for fromUpstreamError. */
export async function readErrorBody(body: UpstreamResponse['body']): Promise<unknown> {
  const text = await body.text().catch(() => '');
  const bounded = text.slice(0, 64 * 1024);
  try {
    return JSON.parse(bounded) as unknown;
  } catch {
    return bounded;
  }
}
