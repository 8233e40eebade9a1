import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, type JSONRPCMessage, type JSONRPCNotification, type ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { Dispatcher } from 'undici';
import type { McpServer } from './server-store.js';
import type { UpstreamSessionRef } from './session-store.js';
import { UpstreamAuthError, type McpUpstreamAuth } from './upstream-auth.js';
import { maskDeep, type Masker } from '../secret-masker.js';
import type { McpHealth } from './health.js';
import { listenUpstream, type UpstreamListening } from './upstream-listen.js';
import { boundedFetch, DEFAULT_MCP_MAX_RESULT_BYTES, ResultTooLargeError } from './upstream-fetch.js';
import { MCP_ERROR } from './json-rpc-errors.js';

/** The default wait for one upstream request. */
export const DEFAULT_MCP_TIMEOUT_MS = 60_000;

/** How long opening a gateway session's upstream sessions may hold the client (a slow server's opens on first use). */
export const OPEN_SESSIONS_WITHIN_MS = 5_000;

/** How the gateway reaches upstream MCP servers: the shared undici agent, and the default bound of an answer. */
export interface McpUpstreamOptions {
  dispatcher: Dispatcher;
  maxResultBytes?: number | undefined;
}

/** How an upstream failure reads to the client: a JSON-RPC error with the HTTP-like status the log records. */
export class UpstreamMcpError extends McpError {
  constructor(
    code: number,
    message: string,
    readonly status: number,
  ) {
    super(code, message);
  }
}

/** What one gateway request does with one upstream: the SDK client, connected. */
export interface UpstreamCall<T> {
  (client: Client): Promise<T>;
}

export interface UpstreamOutcome<T> {
  value: T;
  /** The upstream session now held (a new one when the stored one was gone), or undefined for a stateless upstream. */
  ref: UpstreamSessionRef | undefined;
  /** Set when this call initialized the upstream (the stored session was missing or gone). */
  capabilities?: ServerCapabilities | undefined;
}

/**
 * Talks to upstream MCP servers with the SDK's client over Streamable HTTP (issue 31). A stored
 * upstream session is resumed without a new `initialize` (the SDK skips it when the transport has
 * a session id); an upstream that says 404 (its session ended) is initialized afresh and the call
 * made once more. Each gateway request opens and closes its own client: no state stays here.
 */
export class McpUpstreams {
  constructor(
    private readonly auth: McpUpstreamAuth,
    private readonly health: McpHealth,
    private readonly options: McpUpstreamOptions,
  ) {}

  /** `traceHeaders`: the W3C trace context of the call's span (telemetry), sent with the server's own headers. */
  async run<T>(server: McpServer, ref: UpstreamSessionRef | undefined, call: UpstreamCall<T>, traceHeaders?: Readonly<Record<string, string>>): Promise<UpstreamOutcome<T>> {
    try {
      if (ref) {
        try {
          const value = await this.withClient(server, ref, call, undefined, traceHeaders);
          this.health.ok(server.name);
          return { value, ref };
        } catch (error) {
          if (!(error instanceof StreamableHTTPError && (error.code === 404 || error.code === 400))) throw error;
          // The upstream forgot the session (restart, expiry): a new one, and the call again.
        }
      }
      let opened: { ref: UpstreamSessionRef | undefined; capabilities: ServerCapabilities | undefined } | undefined;
      const value = await this.withClient(server, undefined, call, (fresh) => (opened = fresh), traceHeaders);
      this.health.ok(server.name);
      return { value, ref: opened?.ref, capabilities: opened?.capabilities };
    } catch (error) {
      const failure = this.explain(server, error);
      // A result over the bound is that call's: the server itself answers.
      if ((failure.status >= 500 && failure.code !== MCP_ERROR.upstreamTooLarge) || failure.code === MCP_ERROR.upstreamAuthFailed) this.health.failed(server.name, failure.message);
      else this.health.ok(server.name);
      throw failure;
    }
  }

  /**
   * Opens an upstream session on each server that has none in `held`, in parallel, waiting at most
   * `boundMs` (a server that is down or slow is left out: its session opens on first use). The
   * gateway session holds them from its start, so its GET stream listens where its calls land.
   */
  async openSessions(servers: readonly McpServer[], held: Readonly<Record<string, UpstreamSessionRef>>, boundMs: number): Promise<Record<string, UpstreamSessionRef>> {
    const opened: Record<string, UpstreamSessionRef> = {};
    let late = false;
    const openings = servers
      .filter((server) => !held[server.name])
      .map(async (server) => {
        const outcome = await this.run(server, undefined, async () => undefined);
        if (!outcome.ref) return;
        // Opened after the bound: no gateway session holds it, so it is ended at once rather than left upstream.
        if (late) await this.end(server, outcome.ref);
        else opened[server.name] = outcome.ref;
      });
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, boundMs)));
    await Promise.race([Promise.allSettled(openings), bound]);
    clearTimeout(timer);
    late = true;
    return { ...opened };
  }

  /** Ends the upstream sessions a gateway session held (it ended: DELETE, expiry, eviction); servers gone since are skipped. */
  async endSessions(held: Readonly<Record<string, UpstreamSessionRef>>, servers: ReadonlyMap<string, McpServer>): Promise<void> {
    await Promise.all(
      Object.entries(held).map(([name, ref]) => {
        const server = servers.get(name);
        return server ? this.end(server, ref) : undefined;
      }),
    );
  }

  /** Opens the upstream's server-to-client stream of a session (upstream-listen.ts); undefined when it offers none. */
  async listen(server: McpServer, ref: UpstreamSessionRef, signal: AbortSignal, onNotification: (notification: JSONRPCNotification) => void): Promise<UpstreamListening | undefined> {
    let credentials: Record<string, string>;
    try {
      credentials = await this.auth.headersFor(server);
    } catch (error) {
      this.health.failed(server.name, this.explain(server, error).message);
      return undefined;
    }
    const mask = this.auth.maskerFor(server);
    return listenUpstream({ credentials, health: this.health, timeoutMs: server.timeout_ms ?? DEFAULT_MCP_TIMEOUT_MS, dispatcher: this.options.dispatcher, maxEventBytes: this.maxResultBytes(server) }, server, ref, signal, (notification) => onNotification(maskMessage(notification, mask)));
  }

  /** Ends an upstream session (the client's DELETE); an upstream that refuses is left to expire it. */
  async end(server: McpServer, ref: UpstreamSessionRef): Promise<void> {
    let transport: StreamableHTTPClientTransport;
    try {
      transport = await this.transportFor(server, ref);
    } catch {
      return;
    }
    try {
      await transport.terminateSession();
    } catch {
      // Best effort: the upstream may not support DELETE (405) or may be down.
    } finally {
      await transport.close().catch(() => undefined);
    }
  }

  /** Most bytes of one answer of this server. */
  maxResultBytes(server: McpServer): number {
    return server.max_result_bytes ?? this.options.maxResultBytes ?? DEFAULT_MCP_MAX_RESULT_BYTES;
  }

  private async transportFor(
    server: McpServer,
    ref: UpstreamSessionRef | undefined,
    traceHeaders: Readonly<Record<string, string>> = {},
    onTooLarge: (error: ResultTooLargeError) => void = () => undefined,
  ): Promise<StreamableHTTPClientTransport> {
    const headers = { ...traceHeaders, ...(await this.auth.headersFor(server)) };
    const fetchBounded = boundedFetch(this.options.dispatcher, this.maxResultBytes(server), onTooLarge);
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers },
      ...(ref ? { sessionId: ref.sessionId } : {}),
      // The SDK client would open the session's GET stream after initialize: an upstream allows one
      // per session, and the client's own GET (notification-stream.ts) is the one that listens.
      fetch: (url, init) => (init?.method === 'GET' ? Promise.resolve(new Response(null, { status: 405 })) : fetchBounded(url, init)),
      // The gateway relays no server-initiated stream: no reconnect loops against an upstream's GET.
      reconnectionOptions: { maxReconnectionDelay: 1_000, initialReconnectionDelay: 1_000, reconnectionDelayGrowFactor: 1, maxRetries: 0 },
    });
    if (ref) transport.setProtocolVersion(ref.protocolVersion);
    maskIncoming(transport, this.auth.maskerFor(server));
    return transport;
  }

  private async withClient<T>(
    server: McpServer,
    ref: UpstreamSessionRef | undefined,
    call: UpstreamCall<T>,
    onOpened?: (opened: { ref: UpstreamSessionRef | undefined; capabilities: ServerCapabilities | undefined }) => void,
    traceHeaders?: Readonly<Record<string, string>>,
  ): Promise<T> {
    // An answer over the bound fails the call at once, whichever way the SDK reads it (JSON or SSE).
    let tooLarge!: (error: ResultTooLargeError) => void;
    const cutOff = new Promise<never>((_resolve, reject) => (tooLarge = reject));
    cutOff.catch(() => undefined);
    const transport = await this.transportFor(server, ref, traceHeaders, tooLarge);
    const client = new Client({ name: 'model-gateway', version: '1' }, { capabilities: {} });
    // Background failures (the optional GET stream) are not this call's: the call's own errors reject it.
    client.onerror = () => undefined;
    try {
      await Promise.race([client.connect(transport, { timeout: server.timeout_ms ?? DEFAULT_MCP_TIMEOUT_MS }), cutOff]);
      if (!ref) {
        const sessionId = transport.sessionId;
        onOpened?.({ ref: sessionId ? { sessionId, protocolVersion: transport.protocolVersion ?? '2025-03-26' } : undefined, capabilities: client.getServerCapabilities() });
      }
      return await Promise.race([call(client), cutOff]);
    } finally {
      await client.close().catch(() => undefined);
    }
  }

  /** The client's view of a failure: never the upstream's URL, headers or credential; its JSON-RPC errors as they came. */
  private explain(server: McpServer, error: unknown): UpstreamMcpError {
    const name = server.name;
    if (error instanceof UpstreamMcpError) return error;
    if (error instanceof ResultTooLargeError) {
      return new UpstreamMcpError(MCP_ERROR.upstreamTooLarge, `MCP server '${name}' sent an answer larger than ${error.limitBytes} bytes (its max_result_bytes); the gateway cut it off`, 502);
    }
    if (error instanceof UpstreamAuthError) return new UpstreamMcpError(MCP_ERROR.upstreamAuthFailed, `MCP server '${name}': ${error.message}`, 502);
    if (error instanceof StreamableHTTPError) {
      if (error.code === 401 || error.code === 403) {
        this.auth.forget(name);
        return new UpstreamMcpError(MCP_ERROR.upstreamAuthFailed, `MCP server '${name}' refused the gateway's credentials (HTTP ${error.code}); an operator must fix the server's authentication`, 502);
      }
      return new UpstreamMcpError(MCP_ERROR.upstreamUnavailable, `MCP server '${name}' answered HTTP ${error.code ?? '?'}`, 502);
    }
    if (error instanceof McpError) {
      if (error.code === ErrorCode.RequestTimeout) return new UpstreamMcpError(MCP_ERROR.upstreamTimeout, `MCP server '${name}' did not answer within ${server.timeout_ms ?? DEFAULT_MCP_TIMEOUT_MS} ms`, 504);
      if (error.code === ErrorCode.ConnectionClosed) return new UpstreamMcpError(MCP_ERROR.upstreamUnavailable, `MCP server '${name}' closed the connection`, 502);
      // The upstream's own JSON-RPC error (unknown tool, bad arguments): passed on, credentials masked.
      const message = this.auth.maskerFor(server)(error.message.replace(/^MCP error -?\d+: /, ''));
      return new UpstreamMcpError(error.code, message, 200);
    }
    return new UpstreamMcpError(MCP_ERROR.upstreamUnavailable, `MCP server '${name}' is unreachable`, 502);
  }
}

/**
 * Every message from the upstream masked of the server's secrets before the SDK's client reads it
 * (issue 44): results of every method, errors, progress and other notifications alike, so nothing
 * the upstream echoes of what the gateway sent it reaches a client, the request log or a trace.
 * The transport calls whatever `onmessage` holds; the client sets it on connect.
 */
function maskIncoming(transport: StreamableHTTPClientTransport, mask: Masker): void {
  let handler: StreamableHTTPClientTransport['onmessage'];
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => handler,
    set: (next: StreamableHTTPClientTransport['onmessage']) => {
      handler = next && ((message) => next(maskMessage(message, mask)));
    },
  });
}

/** The message with its payload masked; `id` and `method` as they came (the client matches on them). */
function maskMessage<T extends JSONRPCMessage>(message: T, mask: Masker): T {
  const { jsonrpc, id, method, ...payload } = message as T & { id?: unknown; method?: unknown };
  return { ...maskDeep(payload, mask), jsonrpc, ...(id === undefined ? {} : { id }), ...(method === undefined ? {} : { method }) } as unknown as T;
}
