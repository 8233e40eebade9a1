import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';
import type { FamilyErrors } from '../contracts/family-errors.js';
import type { GatewayError } from '../errors.js';
import { chatErrors, renderChatError } from './chat-completions/errors.js';
import { generateContentErrors, renderGoogleError } from './generate-content/errors.js';
import { isGoogleMethodPath, isGoogleStyleRequest } from './generate-content/google-style.js';
import { generalErrors, renderGeneralError } from './general/errors.js';
import { anthropicErrors, renderAnthropicError } from './messages/errors.js';
import { renderKlingError, videoaltErrors } from './videoalt/errors.js';
import { openaiErrors, renderOpenAIError } from './embeddings/errors.js';

/**
 * The error envelopes of the spec's endpoint families (spec "Error body shapes"), plus the
 * Kling-native envelope of /videoalt and Anthropic's, for /v1/messages in its Anthropic-native
 * mode. Each is its family's (`api/<family>/errors.ts`, declared on the family's routes); this file
 * only finds the family of a request no route took, so 404s get the same envelope as handled errors.
 */
export type EnvelopeKind = 'general' | 'chat' | 'google' | 'kling' | 'anthropic' | 'openai';

export const ERRORS_BY_KIND: Readonly<Record<EnvelopeKind, FamilyErrors>> = {
  general: generalErrors,
  chat: chatErrors,
  google: generateContentErrors,
  kling: videoaltErrors,
  anthropic: anthropicErrors,
  openai: openaiErrors,
};

/** Anthropic's token counting: Anthropic clients only, whatever their headers. */
const COUNT_TOKENS_PATH = '/v1/messages/count_tokens';

export function envelopeForPath(url: string): EnvelopeKind {
  if (url.startsWith('/v1beta/') || url === '/v1beta' || isGoogleMethodPath(url)) return 'google';
  if (url.startsWith('/videoalt/')) return 'kling';
  if (url.startsWith(COUNT_TOKENS_PATH)) return 'anthropic';
  if (url.startsWith('/v1/chat/completions') || url.startsWith('/v1/messages')) return 'chat';
  // OpenAI's full envelope, `param` included: embedding clients name the field they got wrong from it.
  if (url.startsWith('/v1/embeddings') || url.startsWith('/v1/rerank') || url.startsWith('/v1/files') || url.startsWith('/v1/batches')) return 'openai';
  return 'general';
}

/**
 * As envelopeForPath, plus Anthropic's envelope for /v1/messages requests that carry
 * `anthropic-version` (docs/decisions.md "Two modes of /v1/messages"), and the Google envelope for
 * Google-style calls of `/v1/models` (google-style.ts).
 */
export function envelopeForRequest(url: string, headers: IncomingHttpHeaders): EnvelopeKind {
  const kind = envelopeForPath(url);
  if (kind === 'chat' && headers['anthropic-version'] !== undefined && url.startsWith('/v1/messages')) return 'anthropic';
  return kind === 'general' && url.startsWith('/v1/models') && isGoogleStyleRequest(url, headers) ? 'google' : kind;
}

/**
 * Which family's errors answer a request: what its route declares (`config.errors`); by its path
 * when no route took it (an unknown path, or a parametric route that refused it) or the route
 * declares none (management routes: the general envelope).
 */
export function errorsForRequest(request: FastifyRequest, isUnrouted: boolean): FamilyErrors {
  const declared = isUnrouted ? undefined : request.routeOptions.config?.errors;
  return declared ?? ERRORS_BY_KIND[envelopeForRequest(request.url, request.headers)];
}

export function renderError(kind: EnvelopeKind, error: GatewayError, requestId?: string): unknown {
  switch (kind) {
    case 'anthropic':
      return renderAnthropicError(error, requestId);
    case 'general':
      return renderGeneralError(error);
    case 'openai':
      return renderOpenAIError(error);
    case 'chat':
      return renderChatError(error);
    case 'google':
      return renderGoogleError(error);
    case 'kling':
      return renderKlingError(error);
  }
}
