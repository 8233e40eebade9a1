import { DataCell, DataRow, DataTable, RowHeader } from '../../components/data-table';
import { Dialog } from '../../components/dialog';
import { ErrorNote } from '../../components/states';
import { Loading } from '../../shell/loading';
import { api } from '../../lib/api';
import { formatCount, formatMs, formatSeconds, formatUsd } from '../../lib/format';
import type { Attempt, RequestDetail } from '../../lib/log-types';
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

/** What each line of a bill is, and the unit its price is per. */
const DIMENSIONS: Record<string, [string, string]> = {
  input: ['Input tokens', 'per 1M'],
  cached_input: ['Cached input tokens', 'per 1M'],
  cache_write_5m: ['Cache writes (5 min)', 'per 1M'],
  cache_write_1h: ['Cache writes (1 h)', 'per 1M'],
  image_input: ['Image input tokens', 'per 1M'],
  output: ['Output tokens', 'per 1M'],
  reasoning: ['Reasoning tokens', 'per 1M'],
  image_output: ['Image output tokens', 'per 1M'],
  images: ['Images', 'each'],
  video_seconds: ['Video seconds', 'per second'],
};

/** The request's bill line by line (issue 21), at the price it was billed at. */
function CostLines({ lines, total }: { lines: RequestDetail['cost_lines']; total: number | null }) {
  if (lines.length === 0) return <p className="muted">Nothing was billed for this request.</p>;
  // The shared table: cards when the drawer is narrow, so Price and Cost stay on screen at 390 px (issue 35).
  return (
    <DataTable caption="Cost by billed dimension" columns={['Billed for', { label: 'Quantity', className: 'num' }, { label: 'Price', className: 'num' }, { label: 'Cost', className: 'num' }]}>
      {lines.map((line) => {
        const [label, unit] = DIMENSIONS[line.dimension] ?? [line.dimension, ''];
        return (
          <DataRow key={line.dimension}>
            <RowHeader>{label}</RowHeader>
            <DataCell label="Quantity" className="num">
              {formatCount(line.quantity)}
            </DataCell>
            <DataCell label="Price" className="num">
              {formatUsd(line.unit_usd)} {unit}
            </DataCell>
            <DataCell label="Cost" className="num">
              {formatUsd(line.usd)}
            </DataCell>
          </DataRow>
        );
      })}
      <DataRow>
        <RowHeader>Total</RowHeader>
        <DataCell label="Quantity" />
        <DataCell label="Price" />
        <DataCell label="Cost" className="num">
          {formatUsd(total)}
        </DataCell>
      </DataRow>
    </DataTable>
  );
}

/** Each upstream attempt: where it went, what came back, how long it took, why it moved on. */
function Attempts({ attempts }: { attempts: readonly Attempt[] }) {
  if (attempts.length === 0) return <p className="muted">No upstream was called: the gateway answered this request itself.</p>;
  return (
    <ol className="attempts" aria-label="Attempts">
      {attempts.map((attempt, index) => (
        <li key={index}>
          <span className={`badge ${attempt.error_code ? 'badge-failed' : 'badge-succeeded'}`}>
            <span aria-hidden="true">{attempt.error_code ? '✕' : '✓'}</span> {attempt.status ?? 'no answer'}
          </span>{' '}
          {attempt.channel ?? 'upstream'} · {formatMs(attempt.latency_ms)}
          {attempt.error_code && (
            <div className="small">
              <code>{attempt.error_code}</code> {attempt.error_message}
              {attempt.vendor_message && (
                <div>
                  Vendor said: <q className="vendor-text">{attempt.vendor_message}</q>
                </div>
              )}
            </div>
          )}
        </li>
      ))}
    </ol>
  );
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
            <dd title={d.created_at}>{formatSeconds(d.created_at)}</dd>
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
              {(d.cached_tokens ?? 0) > 0 && ` · ${formatCount(d.cached_tokens)} cached`}
            </dd>
            <dt>Cost</dt>
            <dd>{formatUsd(d.cost_usd)}</dd>
            {d.cache_hit && (
              <>
                <dt>Response cache</dt>
                <dd>
                  <span className="badge badge-enabled">cache hit</span> no upstream call: saved {formatCount(d.total_tokens)} tokens and {formatUsd(d.saved_cost_usd ?? 0)}
                </dd>
              </>
            )}
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
          <h3>Attempts</h3>
          <Attempts attempts={d.attempts ?? []} />
          <h3>Cost</h3>
          <CostLines lines={d.cost_lines ?? []} total={d.cost_usd} />
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
