import { GatewayError } from '../../errors.js';
import { upstreamMessage } from '../upstream-errors.js';

/**
 * Azure's content filter refusing a prompt: 400 `code: "content_filter"` (clouds.md §1), with the
 * categories under `innererror.content_filter_result` (real bodies) or
 * `inner_error.content_filter_results` (the spec). Told to the client as a plain 400 naming the
 * categories that fired, in its own family's envelope; other errors are the OpenAI pair's.
 */
export function contentFilterError(status: number, body: unknown): GatewayError | undefined {
  const error = (body as { error?: Record<string, unknown> } | null)?.error;
  if (status !== 400 || !error || typeof error !== 'object') return undefined;
  const inner = (error.innererror ?? error.inner_error) as Record<string, unknown> | undefined;
  if (error.code !== 'content_filter' && inner?.code !== 'ResponsibleAIPolicyViolation') return undefined;
  const results = (inner?.content_filter_result ?? inner?.content_filter_results) as Record<string, { filtered?: unknown; severity?: unknown }> | undefined;
  const fired = Object.entries(results ?? {})
    .filter(([, verdict]) => verdict && typeof verdict === 'object' && verdict.filtered === true)
    .map(([category, verdict]) => (typeof verdict.severity === 'string' ? `${category}: ${verdict.severity}` : category))
    .filter((name) => /^[a-z_]{1,40}(: [a-z]{1,10})?$/.test(name));
  const which = fired.length > 0 ? ` (${fired.join(', ')})` : '';
  return new GatewayError('GW_UPSTREAM_BAD_REQUEST', `The request was blocked by the upstream content filter${which}`, { param: 'messages', vendorMessage: upstreamMessage(body) });
}
