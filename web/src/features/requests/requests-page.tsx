import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { apiBase, useUser } from '../../app/session';
import { Empty, ErrorNote, Loading, NotAvailable } from '../../components/states';
import { api, isNotAvailable, queryString } from '../../lib/api';
import { formatCount, formatMs, formatTime, formatUsd } from '../../lib/format';
import { usePageTitle } from '../../lib/page-title';
import type { ApiKey, ConsoleModel, ListAnswer, RequestEntry } from '../../lib/types';
import { useCursorPages } from '../../lib/use-cursor-pages';
import { useLoad } from '../../lib/use-load';
import { FilterBar } from '../usage/usage-filters';
import { RequestDrawer } from './request-drawer';

const PAGE_SIZE = 50;

const failed = (entry: RequestEntry) => entry.outcome !== 'success' || (typeof entry.status === 'number' && entry.status >= 400);

/** The request log, newest first: filters in the URL, cursor pages ("load more"), a detail drawer. */
export function RequestsPage() {
  usePageTitle('Request log');
  const user = useUser();
  const base = apiBase(user);
  const isOperator = user.role === 'operator';
  const [params, setParams] = useSearchParams();
  const filter = { key: params.get('key') ?? undefined, model: params.get('model') ?? undefined, status: params.get('status') ?? undefined, from: params.get('from') ?? undefined, to: params.get('to') ?? undefined };
  const [openId, setOpenId] = useState<string>();
  const [status, setStatus] = useState(filter.status ?? '');

  const { first, rows, more } = useCursorPages<RequestEntry>((before) => `${base}/requests${queryString({ ...filter, before, limit: PAGE_SIZE })}`, [base, params.toString()]);
  const keys = useLoad((signal) => api<ListAnswer<ApiKey>>('GET', `${base}/keys`, undefined, { signal }), [base]);
  const models = useLoad((signal) => api<ListAnswer<ConsoleModel>>('GET', '/console/api/models', undefined, { signal }), []);

  const apply = (values: Record<string, string | undefined>) => {
    const nextParams = new URLSearchParams();
    for (const [name, value] of Object.entries(values)) if (value) nextParams.set(name, value);
    setParams(nextParams);
  };

  if (isNotAvailable(first.error)) {
    return (
      <section aria-labelledby="requests-title">
        <h1 id="requests-title">Request log</h1>
        <NotAvailable what="The request log" endpoint={`GET ${base}/requests`} />
      </section>
    );
  }

  return (
    <section aria-labelledby="requests-title">
      <div className="page-head">
        <h1 id="requests-title">Request log</h1>
        <button type="button" onClick={first.reload}>
          Refresh
        </button>
      </div>
      <p className="muted">{isOperator ? 'Every request through this gateway' : 'Requests made with your keys'}, newest first.</p>
      <FilterBar key={params.toString()} value={filter} keys={keys.data?.data ?? []} models={models.data?.data ?? []} onApply={(v) => apply({ ...v, status })}>
        <label>
          Status
          <input value={status} onChange={(e) => setStatus(e.target.value)} placeholder="429, 4xx, error or success" />
        </label>
      </FilterBar>
      {first.error !== undefined && <ErrorNote error={first.error} retry={first.reload} />}
      {first.loading && !first.data && <Loading what="Loading requests" />}
      {first.data && rows.length === 0 && <Empty>No requests match these filters.</Empty>}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Requests ({rows.length} shown)</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Status</th>
                <th scope="col">Endpoint</th>
                <th scope="col">Model</th>
                <th scope="col">Key</th>
                {isOperator && <th scope="col">Channel</th>}
                <th scope="col" className="num">Tokens in / out</th>
                <th scope="col" className="num">Cost</th>
                <th scope="col" className="num">Latency</th>
                <th scope="col" className="num">First byte</th>
                <th scope="col" className="num">Retries</th>
                <th scope="col">Error</th>
                <th scope="col">
                  <span className="visually-hidden">Details</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((entry) => (
                <tr key={entry.id}>
                  <td title={entry.created_at}>{formatTime(entry.created_at)}</td>
                  <td>
                    <span className={`badge ${failed(entry) ? 'badge-failed' : 'badge-succeeded'}`}>
                      <span aria-hidden="true">{failed(entry) ? '✕' : '✓'}</span> {entry.status ?? '—'}
                    </span>
                  </td>
                  <td>{entry.family ?? '—'}</td>
                  <td>{entry.model ?? '—'}</td>
                  <td className="clip">{entry.key_name ?? entry.key_id ?? '—'}</td>
                  {isOperator && <td>{entry.channel ?? '—'}</td>}
                  <td className="num">
                    {formatCount(entry.prompt_tokens)} / {formatCount(entry.completion_tokens)}
                  </td>
                  <td className="num">{formatUsd(entry.cost_usd)}</td>
                  <td className="num">{formatMs(entry.latency_ms)}</td>
                  <td className="num">{formatMs(entry.ttfb_ms)}</td>
                  <td className="num">{entry.retries ?? 0}</td>
                  <td className="clip" title={entry.error_message ?? undefined}>
                    {entry.error_code ?? ''}
                  </td>
                  <td>
                    <button type="button" onClick={() => setOpenId(entry.id)} aria-label={`Details of request ${entry.id}`}>
                      Details
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {more}
      {openId && <RequestDrawer base={base} id={openId} onClose={() => setOpenId(undefined)} />}
    </section>
  );
}
