/**
 * Bedrock's exceptions (clouds.md §2 "Errors"): HTTP answers carry the name in `x-amzn-ErrorType`
 * and a body `{"message"}` (some proxies and SDK fakes add `__type`/`code`); stream exceptions
 * arrive as events named by the exception's member. Both map to the gateway's upstream errors,
 * whose statuses drive retries: throttling and a model still loading are retried, a rejected
 * request is the client's 400, rejected credentials are ours (502), never the client's 401.
 */
import { GatewayError } from '../../errors.js';
import { upstreamMessage, upstreamStatusError } from '../../providers/upstream-errors.js';

/** Stream exception members (lower camel) and HTTP exception names, by the status Bedrock gives them. */
const STATUS_BY_EXCEPTION: Readonly<Record<string, number>> = {
  validationexception: 400,
  servicequotaexceededexception: 400,
  accessdeniedexception: 403,
  unrecognizedclientexception: 403,
  invalidsignatureexception: 403,
  expiredtokenexception: 403,
  resourcenotfoundexception: 404,
  modeltimeoutexception: 408,
  throttlingexception: 429,
  modelerrorexception: 424,
  modelstreamerrorexception: 424,
  internalserverexception: 500,
  // A model that is still loading: Bedrock says 429, but it is capacity, not our rate; retried as unavailable.
  modelnotreadyexception: 503,
  serviceunavailableexception: 503,
};

/** `ValidationException`, `…#ValidationException`, `ValidationException:http://…` → `validationexception`. */
const exceptionKey = (name: string): string => name.replace(/^.*#/, '').replace(/:.*$/, '').toLowerCase();

function exceptionNameOf(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  const name = record.__type ?? record.code;
  return typeof name === 'string' ? name : undefined;
}

/** An HTTP error answer. */
export function bedrockUpstreamError(status: number, body: unknown): GatewayError {
  const name = exceptionNameOf(body);
  const known = name === undefined ? undefined : STATUS_BY_EXCEPTION[exceptionKey(name)];
  return upstreamStatusError(known ?? status, upstreamMessage(body) ?? messageOf(body));
}

/** An exception event in a stream (after HTTP 200): fails the stream like the matching status. */
export function bedrockStreamError(data: string): GatewayError {
  let body: unknown;
  try {
    body = JSON.parse(data) as unknown;
  } catch {
    return new GatewayError('GW_UPSTREAM_ERROR', 'The upstream stream failed');
  }
  const name = exceptionNameOf(body) ?? '';
  return upstreamStatusError(STATUS_BY_EXCEPTION[exceptionKey(name)] ?? 500, messageOf(body));
}

/** Bedrock spells it `message` or, in some answers, `Message`. */
function messageOf(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  const message = record.message ?? record.Message;
  return typeof message === 'string' ? message : undefined;
}
