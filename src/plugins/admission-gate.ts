import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors.js';
import type { ApiKey } from '../keys/key-store.js';
import { onRequestEnd } from './request-end.js';

/**
 * The key's limits that need no model, applied on the request's headers, before a byte of its
 * body is read (issue 34: eight slow 32 MiB bodies of a key with `rpm: 1` filled the instance's
 * body budget for every tenant). A request that declares a body, from a key:
 * - takes its `max_parallel_requests` slot here (admission takes it later for bodiless calls);
 * - with an `rpm` of its own, may be one of at most `rpm` bodies that key is sending at once (the
 *   per-model minute count, like tpm and the model allow-list, runs once the body names its model);
 * - with a budget already spent, is refused.
 * Callback style, without a promise unless the key has a budget (this runs on every request).
 */
export function registerAdmissionGate(app: FastifyInstance): void {
  const uploading = new Map<string, number>();
  app.addHook('onRequest', (request, reply, done) => {
    const key = request.gw?.key;
    if (!key || !declaresBody(request)) return done();
    try {
      if (key.maxParallel !== null) holdParallelSlot(request, reply, key, key.maxParallel);
      if (key.rpm !== null) holdUpload(uploading, request, reply, key, key.rpm);
    } catch (refusal) {
      return done(refusal as Error);
    }
    if (key.budgetUsd === null) return done();
    request.server.admission.budgets.spent(key.id).then(
      (spent) => done(spent >= key.budgetUsd! ? budgetSpent(key, spent) : undefined),
      done,
    );
  });
}

const declaresBody = (request: FastifyRequest): boolean => {
  const length = request.headers['content-length'];
  return length === undefined ? request.headers['transfer-encoding'] !== undefined : length !== '0';
};

/**
 * `max_parallel_requests`: one slot per request in flight, given back when the response is over
 * (sent, failed or abandoned), whatever admission step refuses it afterwards. Per instance.
 */
export function holdParallelSlot(request: FastifyRequest, reply: FastifyReply, key: ApiKey, max: number): void {
  const { parallel } = request.server.admission;
  const running = parallel.get(key.id) ?? 0;
  if (running >= max) {
    throw new GatewayError('GW_RATE_LIMITED', `This API key (${key.prefix}…) already has ${max} requests in flight, its max_parallel_requests; retry when one ends.`, { retryAfterSeconds: 1 });
  }
  parallel.set(key.id, running + 1);
  request.gw.parallelSlot = true;
  onRequestEnd(request, reply, releaseParallelSlot);
}

function releaseParallelSlot(_end: unknown, request: FastifyRequest): void {
  release(request.server.admission.parallel, request.gw.key!.id);
}

const kUploads = Symbol('gateway.uploads');

function holdUpload(uploading: Map<string, number>, request: FastifyRequest, reply: FastifyReply, key: ApiKey, rpm: number): void {
  const sending = uploading.get(key.id) ?? 0;
  if (sending >= rpm) {
    throw new GatewayError('GW_RATE_LIMITED', `This API key (${key.prefix}…) is already sending ${sending} request bodies, as many as its limit of ${rpm} requests per minute; retry when one has arrived.`, { retryAfterSeconds: 1 });
  }
  uploading.set(key.id, sending + 1);
  (request as UploadingRequest)[kUploads] = uploading;
  // Once the body has arrived it no longer counts as one being sent (no hook for requests without a slot).
  request.raw.once('end', () => releaseUpload(undefined, request));
  onRequestEnd(request, reply, releaseUpload);
}

type UploadingRequest = FastifyRequest & { [kUploads]?: Map<string, number> };

/** At the body's arrival, or at the end for a request that never got that far; once. */
function releaseUpload(_end: unknown, request: FastifyRequest): void {
  const uploading = (request as UploadingRequest)[kUploads];
  if (!uploading) return;
  (request as UploadingRequest)[kUploads] = undefined;
  release(uploading, request.gw.key!.id);
}

function release(counts: Map<string, number>, id: string): void {
  const left = (counts.get(id) ?? 1) - 1;
  if (left <= 0) counts.delete(id);
  else counts.set(id, left);
}

const budgetSpent = (key: ApiKey, spent: number) =>
  new GatewayError('GW_QUOTA_EXCEEDED', `This API key has used its budget of ${key.budgetUsd} USD (${Math.round(spent * 1e6) / 1e6} USD spent).`);
