import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { KeyLookup } from '../../keys/key-store.js';
import { grantsServer } from '../../gateway/mcp/tool-names.js';
import type { JSONRPCNotification } from '@modelcontextprotocol/sdk/types.js';
import { OPEN_SESSIONS_WITHIN_MS } from '../../gateway/mcp/upstream.js';
import type { UpstreamListening } from '../../gateway/mcp/upstream-listen.js';
import { openClientStream } from '../../gateway/client-stream.js';
import { formatSse } from '../../sse/write.js';
import { MCP_ERROR } from '../../gateway/mcp/json-rpc-errors.js';
import { jsonRpcError } from './errors.js';
import { AGGREGATE, serversOf, sessionOf } from './request-scope.js';

/**
 * What reaches the client from its upstreams' streams: on `/mcp` only that the tool list changed
 * (resources and prompts are not aggregated), on `/mcp/{server}` the list changes and resource
 * updates too. Other notifications (logging, cancellations of requests the gateway did not relay)
 * name nothing the client knows.
 */
const RELAYED_ON_AGGREGATE = new Set(['notifications/tools/list_changed']);
const RELAYED_ON_ONE_SERVER = new Set([...RELAYED_ON_AGGREGATE, 'notifications/resources/list_changed', 'notifications/prompts/list_changed', 'notifications/resources/updated']);

/** An open GET stream: whose it is and the servers it listens on, so a revocation can end it. */
export interface OpenStream {
  keyId: string;
  servers: readonly string[];
  close: () => void;
}

/** How often open streams are checked against their key and grant: a revocation ends them within a second. */
const RECHECK_MS = 500;

/**
 * The open GET streams of one app, by gateway session: one each (a reconnecting client replaces
 * its old stream). While any is open, every RECHECK_MS `revoked` names those whose key was
 * revoked (disabled, expired) or whose grant or server was removed, and they end.
 */
export class NotificationStreams {
  private readonly bySession = new Map<string, OpenStream>();
  private timer: NodeJS.Timeout | undefined;
  private checking = false;

  constructor(private readonly revoked: (open: readonly OpenStream[]) => Promise<readonly OpenStream[]>) {}

  add(sessionId: string, stream: OpenStream): void {
    this.bySession.get(sessionId)?.close();
    this.bySession.set(sessionId, stream);
    this.timer ??= setInterval(() => void this.recheck(), RECHECK_MS).unref();
  }

  remove(sessionId: string, close: () => void): void {
    if (this.bySession.get(sessionId)?.close === close) this.bySession.delete(sessionId);
    if (this.bySession.size === 0) this.stopChecking();
  }

  closeSession(sessionId: string): void {
    this.bySession.get(sessionId)?.close();
  }

  closeAll(): void {
    for (const stream of [...this.bySession.values()]) stream.close();
    this.stopChecking();
  }

  private stopChecking(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async recheck(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      for (const stream of await this.revoked([...this.bySession.values()])) stream.close();
    } catch {
      // The store is unreachable: the streams stay until the next check (their keep-alive also asks).
    } finally {
      this.checking = false;
    }
  }
}

/** The streams whose key no longer authenticates, or that listen on a server the key's grant (or the gateway) no longer has. */
export function revokedStreams(app: FastifyInstance): (open: readonly OpenStream[]) => Promise<readonly OpenStream[]> {
  return async (open) => {
    if (open.length === 0) return [];
    const { keys, mcp } = app.gateway;
    const servers = await mcp.servers.all();
    const lookups = new Map<string, KeyLookup>();
    for (const keyId of new Set(open.map((stream) => stream.keyId))) lookups.set(keyId, await keys.authenticateById(keyId));
    return open.filter((stream) => {
      const lookup = lookups.get(stream.keyId);
      if (lookup?.status !== 'ok') return true;
      return stream.servers.some((name) => servers.get(name)?.enabled === false || !servers.has(name) || !grantsServer(lookup.key, name));
    });
  };
}

/** Comments that keep idle proxies from cutting a quiet stream (the SDK's servers send them as often). */
const KEEP_ALIVE_MS = 15_000;

/**
 * `GET /mcp`: the standalone server-to-client stream of a session (issue 31). It listens on the
 * upstream sessions the gateway session holds and relays their notifications (a tool list that
 * changed). Its head and a first comment leave at once, before any upstream answers: the SDK's
 * own servers send the head only with the first event or keep-alive (15 s later), which clients
 * read as a hanging GET. It ends, and the client reconnects or not as it likes, when the client
 * goes, the session is deleted (here, or on another instance: the upstream then ends its stream),
 * an upstream closes its stream, or the gateway stops: no connection stays that nobody can end.
 */
export async function listen(request: FastifyRequest, reply: FastifyReply, streams: NotificationStreams): Promise<void> {
  const { scope, servers } = await serversOf(request);
  if (!String(request.headers.accept ?? '').includes('text/event-stream')) {
    return void reply.code(406).send(jsonRpcError(MCP_ERROR.httpLevel, 'Not Acceptable: Client must accept text/event-stream'));
  }
  const session = await sessionOf(request, reply, scope);
  if (!session) return;
  const { mcp } = request.server.gateway;
  // A client reconnecting here: its old stream goes first (an upstream allows one per session).
  streams.closeSession(session.id);

  const writer = openClientStream(request, reply);
  void writer.write(': stream open\n\n');
  const abort = new AbortController();
  // Each keep-alive also asks whether the session still is: one ended on an instance whose upstream
  // streams were not these (none offered, or another stream held them) ends here within a beat.
  const keepAlive = setInterval(() => {
    void writer.write(': keepalive\n\n');
    void mcp.sessions.find(session.id).then((live) => live || close(), () => undefined);
  }, KEEP_ALIVE_MS);
  keepAlive.unref();
  const close = () => {
    clearInterval(keepAlive);
    abort.abort();
    writer.end();
    streams.remove(session.id, close);
  };
  streams.add(session.id, { keyId: session.keyId, servers: servers.map((server) => server.name), close });
  reply.raw.on('close', close);

  const relayed = scope === AGGREGATE ? RELAYED_ON_AGGREGATE : RELAYED_ON_ONE_SERVER;
  const relay = (notification: JSONRPCNotification) => {
    if (relayed.has(notification.method)) void writer.write(formatSse({ data: notification }));
  };
  // Upstreams the session holds no session on yet (down at initialize) get one now.
  const opened = await mcp.upstreams.openSessions(servers, session.upstreams, OPEN_SESSIONS_WITHIN_MS);
  for (const [name, ref] of Object.entries(opened)) await mcp.sessions.setUpstream(session.id, name, ref);
  const held = { ...session.upstreams, ...opened };
  const listening = (
    await Promise.all(servers.map((server) => (held[server.name] && !abort.signal.aborted ? mcp.upstreams.listen(server, held[server.name]!, abort.signal, relay) : undefined)))
  ).filter((stream): stream is UpstreamListening => stream !== undefined);
  // The first upstream stream to end ends the client's: it reconnects and listens again on all.
  // None open (no upstream offers one): the stream stays, quiet, until the client or the session goes.
  if (listening.length > 0) void Promise.race(listening.map((stream) => stream.ended)).then(close);
}
