import type { GatewayDeps } from '../gateway-deps.js';
import type { UpstreamAttempt } from '../requests/attempts.js';
import type { FastifyRequest } from 'fastify';
import type { GatewayError } from '../errors.js';
import type { EndpointFamily } from '../contracts/endpoint-family.js';
import type { ApiKey } from '../keys/key-store.js';
import type { Hold } from '../usage/budget-holds.js';
import type { Usage } from '../contracts/usage.js';
import type { EndState } from './request-end.js';
import type { RequestTrace } from '../telemetry/tracing.js';
import type { Charge } from '../usage/charge.js';
import type { RequestFacts } from '../contracts/request-facts.js';
import type { FamilyErrors } from '../contracts/family-errors.js';

/** Per-request data, on one typed decoration (`request.gw`). */
export interface RequestContext {
  startedAt: number;
  /**
   * The gateway's own id for this request's usage event and log entry (issue 23): random and
   * unique, made when the event is first built. The client's x-request-id is `request.id`.
   */
  entryId?: string | undefined;
  key: ApiKey | undefined;
  family: EndpointFamily | undefined;
  model: string | undefined;
  /** What limits, budgets, routing and billing read of the body, made once by the family (api/<family>/facts.ts). */
  facts?: RequestFacts | undefined;
  channel: string | undefined;
  usage: Usage | undefined;
  firstTokenAt: number | undefined;
  /** Set when a stream ended with an error event after its first byte. */
  streamError: GatewayError | undefined;
  /** End-of-request hooks and whether the handler has returned (plugins/request-end.ts). */
  ending?: EndState | undefined;
  /** Tokens counted against the key's tpm at admission, settled to the real usage at the end. */
  reservation?: TokenReservation | undefined;
  /** The key's `max_parallel_requests` slot is held (plugins/admission-gate.ts). */
  parallelSlot?: boolean;
  /** USD held against the key's budget until the request ends (its worst-case cost). */
  budgetHold?: Hold | undefined;
  /** Upstream attempts repeated on the same channel, and channels tried after the first (access log). */
  retries: number;
  fallbacks: number;
  /** Each upstream attempt, kept once one has failed (requests/attempts.ts; the request log's drawer). */
  attempts?: UpstreamAttempt[] | undefined;
  /** The usage event went to the journal before the answer was sent (plugins/usage-recorder.ts). */
  usageJournaled?: boolean;
  /** Whether the request gets a usage event and a log entry (refusals are sampled; plugins/usage-recorder.ts), once decided. */
  recorded?: boolean;
  /** The error the client was answered with (the request log). */
  error?: GatewayError | undefined;
  /** The body was over 1 MiB: its upstream JSON is built a slice per turn (gateway/serialize-in-turns.ts). */
  largeBody?: boolean;
  /** The body's text as received, for same-protocol pass-through (Anthropic-native /v1/messages). */
  bodyText?: string | undefined;
  /** The request's and response's text, kept only while body logging is on (the request log). */
  requestText?: string | undefined;
  responseText?: string | undefined;
  /** The charge worked out for `usage` (plugins/usage-recorder.ts), kept while usage stays the same. */
  charge?: { usage: Usage | undefined; value: Charge | undefined } | undefined;
  /** The answer came from the response cache (issue 32): what it costs, what it saved, the price it was billed at. */
  cacheHit?: { costUsd: number; savedUsd: number; billedPrice: string | null } | undefined;
  /** The request's server span when tracing is on (plugins/tracing.ts); upstream attempts are its children. */
  trace: RequestTrace | undefined;
}

export interface TokenReservation {
  /** The counter's id (key × model). */
  counter: string;
  tokens: number;
  /** The end of the window the tokens were counted in (epoch ms). */
  windowEndsAt: number;
}

/** Route-level options (`config` of a Fastify route). */
export interface RouteOptions {
  /** The endpoint family, for permission checks and usage; omit on public routes. */
  family?: EndpointFamily;
  /**
   * Where one parametric route stands for paths of several families (the native Gemini
   * `{model}:{method}` paths: generateContent and embedContent), the family of this request;
   * `family` when it answers undefined.
   */
  familyOf?: (request: FastifyRequest) => EndpointFamily | undefined;
  /** True on routes that need no API key (health, docs, media links). */
  isPublic?: boolean;
  /**
   * A parametric route standing for paths that exist only for some values (the operator's
   * models on the native paths): false answers the ordinary 404 before authentication.
   */
  exists?: (request: FastifyRequest) => boolean;
  /** The family's error envelope and key location (api/<family>/errors.ts); the general envelope when omitted. */
  errors?: FamilyErrors;
  /** `gen_ai.operation.name` of the route's model calls (the GenAI conventions); omitted where no model is called. */
  operation?: string;
  /** The body's text is kept on the request (`gw.bodyText`) for a same-protocol pass-through. */
  keepsBodyText?: boolean;
  /**
   * The route streams its body to storage as it arrives and never holds it (file uploads): it is
   * not charged against the bodies in flight (plugins/body-budget.ts), which would refuse an
   * upload larger than a key's share of them.
   */
  streamsBody?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    gw: RequestContext;
  }
  interface FastifyInstance {
    gateway: GatewayDeps;
  }
  interface FastifyContextConfig extends RouteOptions {}
}
