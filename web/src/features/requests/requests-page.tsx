import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { apiBase, useUser } from '../../shell/session';
import { ActionsCell, DataCell, DataRow, DataTable, RowHeader } from '../../components/data-table';
import { Empty, ErrorNote, NotAvailable } from '../../components/states';
import { Loading } from '../../shell/loading';
import { api, isNotAvailable, queryString } from '../../lib/api';
import { formatCount, formatMs, formatSeconds, formatUsd } from '../../lib/format';
import { usePageTitle } from '../../lib/page-title';
import type { ApiKey, Channel, ConsoleModel, ListAnswer, RequestEntry, User } from '../../lib/types';
import { useCursorPages } from '../../components/use-cursor-pages';
import { useLoad } from '../../lib/use-load';
import { FilterBar } from '../../components/usage-filters';
import { RequestDrawer } from './request-drawer';

const PAGE_SIZE = 50;

/** The URL's filters, in the API's names: the list, its CSV and a shared link read the same. */
const FILTERS = ['key', 'model', 'status', 'from', 'to', 'request_id', 'error_code', 'channel', 'user'] as const;
type Filter = Partial<Record<(typeof FILTERS)[number], string>>;

const failed = (entry: RequestEntry) => entry.outcome !== 'success' || (typeof entry.status === 'number' && entry.status >= 400);

/** The request log, newest first: filters in the URL, cursor pages ("load more"), a detail drawer, the filtered requests as CSV. */
export function RequestsPage() {
  usePageTitle('Request log');
  const user = useUser();
  const base = apiBase(user);
  const isOperator = user.role === 'operator';
  const [params, setParams] = useSearchParams();
  const filter: Filter = Object.fromEntries(FILTERS.map((name) => [name, params.get(name) ?? undefined]).filter(([name, v]) => v !== undefined && (isOperator || (name !== 'channel' && name !== 'user'))));
  const [openId, setOpenId] = useState<string>();
  const [extra, setExtra] = useState({ status: filter.status ?? '', request_id: filter.request_id ?? '', error_code: filter.error_code ?? '', channel: filter.channel ?? '', user: filter.user ?? '' });
  const setField = (name: keyof typeof extra) => (event: { target: { value: string } }) => setExtra((current) => ({ ...current, [name]: event.target.value }));

  const { first, rows, more } = useCursorPages<RequestEntry>((before) => `${base}/requests${queryString({ ...filter, before, limit: PAGE_SIZE })}`, [base, params.toString()]);
  const keys = useLoad((signal) => api<ListAnswer<ApiKey>>('GET', `${base}/keys`, undefined, { signal }), [base]);
  const models = useLoad((signal) => api<ListAnswer<ConsoleModel>>('GET', '/console/api/models', undefined, { signal }), []);
  const channels = useLoad((signal) => (isOperator ? api<ListAnswer<Channel>>('GET', '/admin/api/channels', undefined, { signal }) : Promise.resolve({ data: [] as Channel[] })), [isOperator]);
  const users = useLoad((signal) => (isOperator ? api<ListAnswer<User>>('GET', '/admin/api/users', undefined, { signal }) : Promise.resolve({ data: [] as User[] })), [isOperator]);

  const apply = (values: Record<string, string | undefined>) => {
    const nextParams = new URLSearchParams();
    for (const [name, value] of Object.entries(values)) if (value?.trim()) nextParams.set(name, value.trim());
    setParams(nextParams);
  };
  const userName = (id: string | null) => (id === null ? '—' : (users.data?.data.find((u) => u.id === id)?.email ?? id));

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
        <div className="row">
          <button type="button" onClick={first.reload}>
            Refresh
          </button>
          <a className="button" href={`${base}/requests.csv${queryString(filter)}`} download>
            Export CSV
          </a>
        </div>
      </div>
      <p className="muted">
        {isOperator ? 'Every request through this gateway' : 'Requests made with your keys'}, newest first. The CSV holds the requests these filters match (at most 100,000).
      </p>
      <FilterBar
        key={params.toString()}
        value={{ from: filter.from, to: filter.to, key: filter.key, model: filter.model }}
        keys={keys.data?.data ?? []}
        models={models.data?.data ?? []}
        onApply={(v) => apply({ ...v, ...extra })}
      >
        <label>
          Status
          <input value={extra.status} onChange={setField('status')} placeholder="429, 4xx, error or success" />
        </label>
        <label>
          Error code
          <input value={extra.error_code} onChange={setField('error_code')} placeholder="rate_limit_exceeded" />
        </label>
        <label>
          Request id
          <input value={extra.request_id} onChange={setField('request_id')} placeholder="x-request-id" />
        </label>
        {isOperator && (
          <label>
            Channel
            <select value={extra.channel} onChange={setField('channel')}>
              <option value="">All channels</option>
              {(channels.data?.data ?? []).map((c) => (
                <option key={c.id} value={c.id}>
                  {c.id}
                </option>
              ))}
            </select>
          </label>
        )}
        {isOperator && (
          <label>
            User
            <select value={extra.user} onChange={setField('user')}>
              <option value="">All users</option>
              {(users.data?.data ?? []).map((u) => (
                <option key={u.id} value={u.id}>
                  {u.email ?? u.name}
                </option>
              ))}
            </select>
          </label>
        )}
      </FilterBar>
      {first.error !== undefined && <ErrorNote error={first.error} retry={first.reload} />}
      {first.loading && !first.data && <Loading what="Loading requests" />}
      {first.data && rows.length === 0 && <Empty>No requests match these filters.</Empty>}
      {rows.length > 0 && (
        <DataTable
          caption={`Requests (${rows.length} shown)`}
          columns={[
            'Time', 'Status', 'Model', 'Key', isOperator && 'User', isOperator && 'Channel', { label: 'Tokens in / out', className: 'num' }, { label: 'Cost', className: 'num' },
            { label: 'Latency / first byte', className: 'num' }, { label: 'Retries / fallbacks', className: 'num' }, { label: 'Details', hidden: true },
          ]}
        >
          {rows.map((entry) => (
            <DataRow key={entry.id}>
              <RowHeader title={entry.created_at}>
                {formatSeconds(entry.created_at)}
              </RowHeader>
              <DataCell label="Status" title={entry.error_message ?? undefined}>
                <span className={`badge ${failed(entry) ? 'badge-failed' : 'badge-succeeded'}`}>
                  <span aria-hidden="true">{failed(entry) ? '✕' : '✓'}</span> {entry.status ?? '—'}
                </span>
                {entry.error_code && <div className="small mono">{entry.error_code}</div>}
              </DataCell>
              <DataCell label="Model">
                {entry.model ?? '—'}
                <div className="small muted">{entry.family ?? ''}</div>
              </DataCell>
              <DataCell label="Key" className="clip">
                {entry.key_name ?? entry.key_id ?? '—'}
              </DataCell>
              {isOperator && <DataCell label="User">{userName(entry.user_id)}</DataCell>}
              {isOperator && <DataCell label="Channel">{entry.channel ?? '—'}</DataCell>}
              <DataCell label="Tokens in / out" className="num">
                {formatCount(entry.prompt_tokens)} / {formatCount(entry.completion_tokens)}
              </DataCell>
              <DataCell label="Cost" className="num">
                {formatUsd(entry.cost_usd)}
              </DataCell>
              <DataCell label="Latency / first byte" className="num">
                {formatMs(entry.latency_ms)} / {formatMs(entry.ttfb_ms)}
              </DataCell>
              <DataCell label="Retries / fallbacks" className="num">
                {entry.retries ?? 0} / {entry.fallbacks ?? 0}
              </DataCell>
              <ActionsCell>
                <button type="button" onClick={() => setOpenId(entry.id)} aria-label={`Details of request ${entry.id}`}>
                  Details
                </button>
              </ActionsCell>
            </DataRow>
          ))}
        </DataTable>
      )}
      {more}
      {openId && <RequestDrawer base={base} id={openId} onClose={() => setOpenId(undefined)} />}
    </section>
  );
}
