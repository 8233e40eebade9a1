import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { apiBase, useUser } from '../../shell/session';
import { Empty, ErrorNote, NotAvailable } from '../../components/states';
import { Loading } from '../../shell/loading';
import { api, isNotAvailable, queryString } from '../../lib/api';
import { usePageTitle } from '../../lib/page-title';
import type { ApiKey, Channel, ConsoleModel, ListAnswer, User } from '../../lib/types';
import type { RequestEntry } from '../../lib/log-types';
import { useCursorPages } from '../../components/use-cursor-pages';
import { useLoad } from '../../lib/use-load';
import { FilterBar } from '../../components/usage-filters';
import { RequestDrawer } from './request-drawer';
import { RequestExtraFilters, type ExtraFilters } from './request-extra-filters';
import { RequestsTable } from './requests-table';

const PAGE_SIZE = 50;

/** The URL's filters, in the API's names: the list, its CSV and a shared link read the same. */
const FILTERS = ['key', 'model', 'status', 'from', 'to', 'request_id', 'error_code', 'family', 'channel', 'user'] as const;
type Filter = Partial<Record<(typeof FILTERS)[number], string>>;

/** The request log, newest first: filters in the URL, cursor pages ("load more"), a detail drawer, the filtered requests as CSV. */
export function RequestsPage() {
  usePageTitle('Request log');
  const user = useUser();
  const base = apiBase(user);
  const isOperator = user.role === 'operator';
  const [params, setParams] = useSearchParams();
  const filter: Filter = Object.fromEntries(FILTERS.map((name) => [name, params.get(name) ?? undefined]).filter(([name, v]) => v !== undefined && (isOperator || (name !== 'channel' && name !== 'user'))));
  const [openId, setOpenId] = useState<string>();
  const [extra, setExtra] = useState<ExtraFilters>({ family: filter.family ?? '', status: filter.status ?? '', request_id: filter.request_id ?? '', error_code: filter.error_code ?? '', channel: filter.channel ?? '', user: filter.user ?? '' });
  const setField = (name: keyof ExtraFilters) => (event: { target: { value: string } }) => setExtra((current) => ({ ...current, [name]: event.target.value }));

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
        <RequestExtraFilters value={extra} onChange={setField} isOperator={isOperator} channels={channels.data?.data ?? []} users={users.data?.data ?? []} />
      </FilterBar>
      {first.error !== undefined && <ErrorNote error={first.error} retry={first.reload} />}
      {first.loading && !first.data && <Loading what="Loading requests" />}
      {first.data && rows.length === 0 && <Empty>No requests match these filters.</Empty>}
      {rows.length > 0 && <RequestsTable rows={rows} isOperator={isOperator} userName={userName} onDetails={setOpenId} />}
      {more}
      {openId && <RequestDrawer base={base} id={openId} onClose={() => setOpenId(undefined)} />}
    </section>
  );
}
