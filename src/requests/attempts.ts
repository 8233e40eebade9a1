/**
 * The upstream attempts of one request (issue 22), for the request log's drawer: each try's
 * channel, the upstream's status (null when none answered), its latency and, when it failed,
 * the gateway's error code and message.
 */
export interface UpstreamAttempt {
  channel: string;
  status: number | null;
  latency_ms: number;
  error_code: string | null;
  error_message: string | null;
  /** The upstream's own error text, redacted of the channel's secrets (operators only; issue 35). Absent on rows stored before it was kept. */
  vendor_message?: string | null;
}

/** The longest error message an attempt keeps: the drawer shows an excerpt, not an upstream's page. */
const MAX_MESSAGE = 300;

/**
 * Adds one attempt to the request's list. The list starts at the first failed try (dispatch adds
 * an answered try only to a list that exists), so a request its first try answered keeps none.
 */
export function noteAttempt(list: UpstreamAttempt[] | undefined, attempt: UpstreamAttempt): UpstreamAttempt[] {
  return [...(list ?? []), { ...attempt, error_message: excerpt(attempt.error_message), vendor_message: excerpt(attempt.vendor_message ?? null) }];
}

const excerpt = (message: string | null): string | null => (message && message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message);

/**
 * The attempts the request log shows: the stored list, or, for a request its first try answered
 * (or one stored before attempts were kept), that one try as the log entry tells it.
 */
export function attemptsOf(stored: string | null, entry: { channel: string | null; status: number; latency_ms: number; error_code: string | null; error_message: string | null }): UpstreamAttempt[] {
  if (stored) {
    try {
      return JSON.parse(stored) as UpstreamAttempt[];
    } catch {
      // A row cut short: fall back to what the entry says.
    }
  }
  if (entry.channel === null) return [];
  const failed = entry.status >= 400;
  return [{ channel: entry.channel, status: entry.status, latency_ms: entry.latency_ms, error_code: failed ? entry.error_code : null, error_message: failed ? entry.error_message : null }];
}
