/**
 * Anthropic Messages API (shared/protocols/anthropic.md).
 *   POST /v1/messages   https://docs.anthropic.com/en/api/messages
 * Auth: `x-api-key: <key>`; every call also names the API version in `anthropic-version`
 * (the official SDK hard-codes 2023-06-01).
 */
import type { ChannelCredentials } from '../../contracts/upstream-call.js';

export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_VERSION = '2023-06-01';
/** Relative to the base URL, which carries no version segment. */
export const ANTHROPIC_MESSAGES_PATH = '/v1/messages';

/** The version a channel pins unless its `headers` name another (and `anthropic-beta` flags). */
export const ANTHROPIC_DEFAULT_HEADERS = { 'anthropic-version': ANTHROPIC_VERSION };

export const anthropicAuthHeaders = (credentials: ChannelCredentials): Record<string, string> =>
  credentials.api_key ? { 'x-api-key': credentials.api_key } : {};
