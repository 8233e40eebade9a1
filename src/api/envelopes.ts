import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayError } from '../errors.js';
import { isGoogleMethodPath, isGoogleStyleRequest } from './google-style.js';

/**
 * The error envelopes of the spec's endpoint families (spec "Error body shapes"), plus the
 * Kling-native envelope that the /videoalt routes speak. Which one a request gets depends only
 * on its path, so 404s and body-parse errors get the same envelope as handled errors.
 */
export type EnvelopeKind = 'general' | 'chat' | 'google' | 'kling';

export function envelopeForPath(url: string): EnvelopeKind {
  if (url.startsWith('/v1beta/') || url === '/v1beta' || isGoogleMethodPath(url)) return 'google';
  if (url.startsWith('/videoalt/')) return 'kling';
  if (url.startsWith('/v1/chat/completions') || url.startsWith('/v1/messages')) return 'chat';
  return 'general';
}

/** As envelopeForPath, plus the Google envelope for Google-style calls of `/v1/models` (google-style.ts). */
export function envelopeForRequest(url: string, headers: IncomingHttpHeaders): EnvelopeKind {
  const kind = envelopeForPath(url);
  return kind === 'general' && url.startsWith('/v1/models') && isGoogleStyleRequest(url, headers) ? 'google' : kind;
}

/** Kling's numeric business codes by HTTP status (protocols/kling.md, "Error codes"). */
const KLING_CODE_BY_STATUS: Record<number, number> = {
  400: 1200, 401: 1000, 403: 1103, 404: 1203, 413: 1200, 429: 1302, 500: 5000, 502: 5000, 503: 5001, 504: 5002,
};

export function renderError(kind: EnvelopeKind, error: GatewayError): unknown {
  switch (kind) {
    case 'general':
      return { error: { message: error.message, type: error.kind.type, code: error.kind.publicCode } };
    case 'chat':
      return { error: { code: error.kind.publicCode, message: error.message } };
    case 'google':
      return { error: { code: error.status, message: error.message, status: error.kind.grpcStatus } };
    case 'kling':
      return { code: error.vendorCode ?? KLING_CODE_BY_STATUS[error.status] ?? 5000, message: error.message, request_id: randomUUID() };
  }
}
