import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JSONRPCNotification } from '@modelcontextprotocol/sdk/types.js';
import { OPEN_SESSIONS_WITHIN_MS } from '../../gateway/mcp/upstream.js';
import type { UpstreamListening } from '../../gateway/mcp/upstream-listen.js';
import { openClientStream } from '../../gateway/client-stream.js';
import { formatSse } from '../../sse/write.js';
import { HTTP_LEVEL_ERROR, jsonRpcError } from './errors.js';
import { AGGREGATE, serversOf, sessionOf } from './request-scope.js';

/**
 * What reaches the client from its upstreams' streams: on `/mcp` only that the tool list changed
 * (resources and prompts are not aggregated), on `/mcp/{server}` the list changes and resource
 * updates too. Other notifications (logging, cancellations of requests the gateway did not relay)
 * name nothing the client knows.
 */
const RELAYED_ON_AGGREGATE = new Set(['notifications/tools/list_changed']);
const RELAYED_ON_ONE_SERVER = new Set([...RELAYED_ON_AGGREGATE, 'notifications/resources/list_changed', 'notifications/prompts/list_changed', 'notifications/resources/updated']);

/** The open GET streams of one app, by gateway session: one each (a reconnecting client replaces its old stream). */
export class NotificationStreams {
  private readonly bySession = new Map<string, () => void>();

  add(sessionId: string, close: () => void): void {
    this.bySession.get(sessionId)?.();
    this.bySession.set(sessionId, close);
  }

  remove(sessionId: string, close: () => void): void {
    if (this.bySession.get(sessionId) === close) this.bySession.delete(sessionId);
  }

  closeSession(sessionId: string): void {
    this.bySession.get(sessionId)?.();
  }

  closeAll(): void {
    for (const close of [...this.bySession.values()]) close();
  }
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
    return void reply.code(406).send(jsonRpcError(HTTP_LEVEL_ERROR, 'Not Acceptable: Client must accept text/event-stream'));
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
  streams.add(session.id, close);
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
