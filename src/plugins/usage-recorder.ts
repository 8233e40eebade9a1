import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { UsageEvent } from '../usage/usage-recorder.js';
import type { RequestLogEntry } from '../requests/request-log.js';
import { chargeOf, type Charge } from '../usage/charge.js';
import { newEntryId } from '../usage/entry-id.js';
import { onRequestEnd, type ResponseEnd } from './request-end.js';
import { RefusalSampler } from '../usage/refusal-sampler.js';
import { JsonChunks } from '../gateway/json-chunks.js';
import { batchLineOf, type BatchLineMark } from './batch-line-mark.js';

/**
 * One usage event per request on a model endpoint, whatever its end: recorded when the
 * connection closes and the handler has returned, so hijacked streams, client disconnects and
 * errors are all counted with the usage known at the end. The cost comes from the price table.
 * The request log's entry for the request is taken at the same moment.
 */
export function registerUsageRecording(app: FastifyInstance): void {
  const refusals = new RefusalSampler();
  // One end hook per app, not a closure per request.
  const recordUsage = (end: ResponseEnd, request: FastifyRequest, reply: FastifyReply): void => {
    if (!isRecorded(refusals, request, reply, end)) return;
    const { usage, requestLog } = request.server.gateway;
    const event = usageEventFor(request, reply, end);
    usage.record(event, request.gw.usageJournaled === true);
    requestLog.record(requestLogEntry(request, event));
  };
  // A callback hook, not an async one: no promise per request on the hot path.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.routeOptions.config.family) onRequestEnd(request, reply, recordUsage);
    done();
  });
  // The answer waits for its usage to be journaled (one write per turn for all answers of that
  // turn): what a client was answered survives a crash (issue 13). Streams are journaled at their end.
  const keepBodies = app.gateway.requestLog.settings.bodies;
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!request.routeOptions.config.family || !request.gw) return done(null, payload);
    if (!isRecorded(refusals, request, reply, { finished: true })) return done(null, payload);
    if (keepBodies) request.gw.responseText = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : payload instanceof JsonChunks ? payload.text() : undefined;
    const event = usageEventFor(request, reply, { finished: true });
    if (request.server.gateway.usage.journalAhead(event, () => done(null, payload))) request.gw.usageJournaled = true;
    else done(null, payload);
  });
}

/**
 * A refusal before any upstream work (a 4xx with no channel tried): the gateway's answer to bad
 * input or to its own limits, which the client can repeat at will with ever new junk.
 */
const isRefusal = (request: FastifyRequest, reply: FastifyReply, end: ResponseEnd): boolean => {
  const status = reply.raw.statusCode;
  return end.finished && status >= 400 && status < 500 && request.gw.channel === undefined && request.gw.usage === undefined;
};

/**
 * Whether the request gets a usage event and a request log entry: always, except a key's
 * refusals past its few per minute (usage/refusal-sampler.ts), which metrics count instead.
 * Decided once per request (the answer's journal entry and the end's record agree).
 */
function isRecorded(refusals: RefusalSampler, request: FastifyRequest, reply: FastifyReply, end: ResponseEnd): boolean {
  const gw = request.gw;
  if (gw.recorded !== undefined) return gw.recorded;
  const key = gw.key;
  if (!key || !isRefusal(request, reply, end)) return (gw.recorded = true);
  const verdict = refusals.verdict(key.id);
  if (verdict === 'skip-first') request.log.warn({ keyPrefix: key.prefix, status: reply.raw.statusCode, code: gw.error?.kind.publicCode }, 'further refusals of this API key this minute are counted in metrics only, not recorded');
  return (gw.recorded = verdict === 'record');
}

/** The request log's part: what the usage event does not hold (errors, retries, headers, bodies). */
function requestLogEntry(request: FastifyRequest, event: UsageEvent): RequestLogEntry {
  const gw = request.gw;
  const error = gw.error ?? gw.streamError;
  return {
    entry_id: event.entry_id!,
    request_id: event.request_id,
    created_at: event.created_at,
    retries: gw.retries,
    fallbacks: gw.fallbacks,
    attempts: gw.attempts,
    error_code: event.error_code ?? null,
    error_message: error ? withAskedModel(error.message, request, event) : null,
    headers: request.headers,
    request_body: gw.requestText,
    response_body: gw.responseText,
  };
}

function usageEventFor(request: FastifyRequest, reply: FastifyReply, end: ResponseEnd): UsageEvent {
  const gw = request.gw;
  const now = Date.now();
  const usage = gw.usage;
  const outcome = outcomeOf(request, reply, end);
  const model = recordedModel(request, reply, end);
  const error = gw.error ?? gw.streamError;
  const charge = chargeOfRequest(request);
  const batchLine = batchLineOf(request.raw);
  if (batchLine) reportBatchLine(batchLine, request, charge);
  return {
    // Made once: the event journaled before the answer and the one recorded at the end are one entry.
    entry_id: (gw.entryId ??= newEntryId(gw.startedAt)),
    request_id: request.id,
    key_id: gw.key?.id ?? null,
    model,
    channel: gw.channel ?? null,
    family: gw.family ?? 'unknown',
    status: reply.raw.statusCode,
    outcome,
    prompt_tokens: usage?.promptTokens ?? 0,
    completion_tokens: usage?.completionTokens ?? 0,
    reasoning_tokens: usage?.reasoningTokens ?? 0,
    images: usage?.images ?? 0,
    video_seconds: usage?.videoSeconds ?? 0,
    cost_usd: charge?.usd ?? 0,
    latency_ms: now - gw.startedAt,
    ttft_ms: gw.firstTokenAt === undefined ? null : gw.firstTokenAt - gw.startedAt,
    created_at: now,
    // On the event as well as in the request log's details: the log filters by it (issue 22).
    error_code: error ? error.kind.publicCode : outcome === 'client_disconnect' ? 'client_disconnect' : null,
    cached_tokens: usage?.cachedTokens ?? 0,
    cache_write_5m_tokens: usage?.cacheWrite5mTokens ?? 0,
    cache_write_1h_tokens: usage?.cacheWrite1hTokens ?? 0,
    image_input_tokens: usage?.imageInputTokens ?? 0,
    image_output_tokens: usage?.imageOutputTokens ?? 0,
    billed_price: charge?.billedPrice ?? null,
    cache_hit: gw.cacheHit ? 1 : 0,
    saved_cost_usd: gw.cacheHit?.savedUsd ?? 0,
    batch_id: batchLine?.batchId ?? null,
  };
}

/** What a line of a batch was billed, for its batch's totals (batches/batch-runner.ts). */
function reportBatchLine(mark: BatchLineMark, request: FastifyRequest, charge: Charge | undefined): void {
  const usage = request.gw.usage;
  mark.report = {
    costUsd: charge?.usd ?? 0,
    channel: request.gw.channel ?? null,
    promptTokens: usage?.promptTokens ?? 0,
    cachedTokens: usage?.cachedTokens ?? 0,
    completionTokens: usage?.completionTokens ?? 0,
    reasoningTokens: usage?.reasoningTokens ?? 0,
  };
}

/**
 * The request's charge at its usage of the moment: worked out once per usage (the answer's journal
 * entry, the end's event and the budget's settlement all ask), since usage is set once it is known.
 */
export function chargeOfRequest(request: FastifyRequest): Charge | undefined {
  const gw = request.gw;
  // A cache hit costs what the operator configured (issue 32), however many tokens it carries.
  if (gw.cacheHit) return { usd: gw.cacheHit.costUsd, billedPrice: gw.cacheHit.billedPrice ?? '' };
  const known = gw.charge;
  if (known && known.usage === gw.usage) return known.value;
  const value = chargeOf(request.server.gateway.prices, gw.channel, gw.model ?? '', gw.usage, gw.facts?.media, batchLineOf(request.raw) ? 'self' : undefined);
  gw.charge = { usage: gw.usage, value };
  return value;
}

/**
 * A refusal keeps the model's name only when the gateway knows that model: a name made up by
 * the client would start rollup rows of its own, per hour and day, that retention never deletes
 * (issue 34: 13,742 rows in 8 s from one key). Its error message still says what was asked.
 */
function recordedModel(request: FastifyRequest, reply: FastifyReply, end: ResponseEnd): string {
  const model = request.gw.model ?? askedModel(request);
  if (model === '' || !isRefusal(request, reply, end)) return model;
  const { catalog } = request.server.gateway;
  return catalog.find(model) !== undefined || catalog.isServed(model) ? model : '';
}

/** A refusal whose model was left out of its event (unknown to the gateway) names it in its log entry's message, for the operator. */
function withAskedModel(message: string, request: FastifyRequest, event: UsageEvent): string {
  if (event.model !== '') return message;
  const asked = request.gw.model ?? askedModel(request);
  return asked === '' ? message : `${message} [model asked: ${asked.slice(0, MAX_ASKED_MODEL)}]`;
}

/** A model name longer than this is cut: it came from a client and was refused anyway. */
const MAX_ASKED_MODEL = 200;

/**
 * The model the client asked for, for a request refused before admission named it (a 400 from
 * body validation, issue 22): the body's `model`, or the path's (`/v1beta/models/{model}:…`), so
 * the log shows what was asked, not a blank.
 */
function askedModel(request: FastifyRequest): string {
  const body = request.body as { model?: unknown } | null | undefined;
  const params = request.params as { model?: unknown; call?: unknown } | undefined;
  const asked = typeof body?.model === 'string' ? body.model : typeof params?.model === 'string' ? params.model : typeof params?.call === 'string' ? params.call.split(':')[0]! : '';
  return asked.slice(0, MAX_ASKED_MODEL);
}

function outcomeOf(request: FastifyRequest, reply: FastifyReply, end: ResponseEnd): string {
  if (!end.finished) return 'client_disconnect';
  if (request.gw.streamError) return 'stream_error';
  return reply.raw.statusCode < 400 ? 'success' : 'error';
}
