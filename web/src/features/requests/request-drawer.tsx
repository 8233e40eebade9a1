import { Dialog } from '../../components/dialog';
import { ErrorNote, Loading } from '../../components/states';
import { api } from '../../lib/api';
import { formatCount, formatMs, formatTime, formatUsd } from '../../lib/format';
import type { RequestDetail } from '../../lib/types';
import { useLoad } from '../../lib/use-load';

/** Pretty-prints a JSON body; anything else is shown as it is. */
function body(text: string | null): string | null {
  if (text === null) return null;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** One request in full, fetched when the drawer opens (never one detail call per row). */
export function RequestDrawer({ base, id, onClose }: { base: string; id: string; onClose: () => void }) {
  const detail = useLoad((signal) => api<RequestDetail>('GET', `${base}/requests/${encodeURIComponent(id)}`, undefined, { signal }), [base, id]);
  const d = detail.data;
  return (
    <Dialog title="Request details" onClose={onClose} variant="drawer">
      {detail.loading && !d && <Loading what="Loading the request" />}
      {detail.error !== undefined && <ErrorNote error={detail.error} retry={detail.reload} />}
      {d && (
        <>
          <dl className="kv">
            <dt>Request id</dt>
            <dd className="mono">{d.request_id}</dd>
            <dt>Time</dt>
            <dd title={d.created_at}>{formatTime(d.created_at)}</dd>
            <dt>Status</dt>
            <dd>
              {d.status ?? '—'} ({d.outcome.replace(/_/g, ' ')})
            </dd>
            <dt>Endpoint family</dt>
            <dd>{d.family ?? '—'}</dd>
            <dt>Model</dt>
            <dd>{d.model ?? '—'}</dd>
            <dt>Key</dt>
            <dd>{d.key_name ?? d.key_id ?? '—'}</dd>
            {d.channel !== null && (
              <>
                <dt>Channel</dt>
                <dd>{d.channel}</dd>
              </>
            )}
            <dt>Latency / first byte</dt>
            <dd>
              {formatMs(d.latency_ms)} / {formatMs(d.ttfb_ms)}
            </dd>
            <dt>Tokens (prompt + completion)</dt>
            <dd>
              {formatCount(d.prompt_tokens)} + {formatCount(d.completion_tokens)} = {formatCount(d.total_tokens)}
            </dd>
            <dt>Cost</dt>
            <dd>{formatUsd(d.cost_usd)}</dd>
            <dt>Retries / fallbacks</dt>
            <dd>
              {d.retries ?? 0} / {d.fallbacks ?? 0}
            </dd>
            {(d.error_code || d.error_message) && (
              <>
                <dt>Error</dt>
                <dd>
                  {d.error_code && <code>{d.error_code}</code>} {d.error_message}
                </dd>
              </>
            )}
          </dl>
          <h3>Request headers</h3>
          {d.request_headers && Object.keys(d.request_headers).length > 0 ? (
            <dl className="kv mono">
              {Object.entries(d.request_headers).map(([name, value]) => (
                <div key={name} style={{ display: 'contents' }}>
                  <dt>{name}</dt>
                  <dd>{value}</dd>
                </div>
              ))}
            </dl>
          ) : (
            <p className="muted">No headers were captured.</p>
          )}
          <h3>Request body</h3>
          {d.request_body === null ? <p className="muted">Not captured for this request.</p> : <pre className="code" tabIndex={0}>{body(d.request_body)}</pre>}
          <h3>Response body</h3>
          {d.response_body === null ? <p className="muted">Not captured for this request.</p> : <pre className="code" tabIndex={0}>{body(d.response_body)}</pre>}
        </>
      )}
    </Dialog>
  );
}
