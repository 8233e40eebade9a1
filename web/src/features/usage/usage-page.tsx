import { lazy, Suspense, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { apiBase, useUser } from '../../shell/session';
import { Empty, ErrorNote } from '../../components/states';
import { Loading } from '../../shell/loading';
import { api, queryString } from '../../lib/api';
import { formatCount, formatUsd } from '../../lib/format';
import { usePageTitle } from '../../lib/page-title';
import type { ApiKey, ConsoleModel, ListAnswer, UsageReport, User } from '../../lib/types';
import { useLoad } from '../../lib/use-load';
import { FilterBar, type UsageFilter } from '../../components/usage-filters';
import { DataCell, DataRow, DataTable, RowHeader } from '../../components/data-table';
import { SpendMeter } from '../../components/spend-meter';
import type { Bucket } from './usage-charts';

const UsageCharts = lazy(() => import('./usage-charts'));

type GroupBy = 'key' | 'model' | 'channel' | 'user' | 'user_model' | 'key_model';

const DEFAULT_DAYS = 7;

/** Usage and cost: totals, charts over time (UTC hours or days), a breakdown table and its CSV. The filters live in the URL. */
export function UsagePage() {
  usePageTitle('Usage');
  const user = useUser();
  const base = apiBase(user);
  const isOperator = user.role === 'operator';
  const [params, setParams] = useSearchParams();
  const [defaultFrom] = useState(() => new Date(Date.now() - DEFAULT_DAYS * 86_400_000).toISOString());
  const filter: UsageFilter = {
    from: params.get('from') ?? defaultFrom,
    to: params.get('to') ?? undefined,
    key: params.get('key') ?? undefined,
    model: params.get('model') ?? undefined,
  };
  const bucket: Bucket = params.get('bucket') === 'hour' ? 'hour' : 'day';
  const groupParam = params.get('group');
  const group: GroupBy =
    groupParam === 'model' || groupParam === 'channel' || groupParam === 'key_model' || ((groupParam === 'user' || groupParam === 'user_model') && isOperator) ? groupParam : 'key';
  const byKey = group === 'key' || group === 'key_model';
  const byUser = group === 'user' || group === 'user_model';
  const query = { from: filter.from, to: filter.to, key: filter.key, model: filter.model };

  const keys = useLoad((signal) => api<ListAnswer<ApiKey>>('GET', `${base}/keys`, undefined, { signal }), [base]);
  const models = useLoad((signal) => api<ListAnswer<ConsoleModel>>('GET', '/console/api/models', undefined, { signal }), []);
  const users = useLoad((signal) => (isOperator ? api<ListAnswer<User>>('GET', '/admin/api/users', undefined, { signal }) : Promise.resolve({ data: [] as User[] })), [isOperator]);
  const series = useLoad((signal) => api<UsageReport>('GET', `${base}/usage${queryString({ ...query, group_by: bucket })}`, undefined, { signal }), [base, bucket, ...Object.values(query)]);
  const breakdown = useLoad((signal) => api<UsageReport>('GET', `${base}/usage${queryString({ ...query, group_by: group })}`, undefined, { signal }), [base, group, ...Object.values(query)]);

  const names = useMemo(() => {
    const map = new Map<string, string>();
    if (byKey) for (const k of keys.data?.data ?? []) map.set(k.id, `${k.name} (${k.prefix}…)`);
    if (byUser) for (const u of users.data?.data ?? []) map.set(u.id, u.email ?? u.name);
    return map;
  }, [byKey, byUser, keys.data, users.data]);

  /** Each key's and each person's whole spend against their budget (a person's: their keys' together). */
  const budgets = useMemo(() => {
    const map = new Map<string, { spent: number; budget: number | null }>();
    const all = keys.data?.data ?? [];
    if (byKey) for (const k of all) map.set(k.id, { spent: k.spent_usd ?? k.spent_month_usd, budget: k.budget_usd });
    if (byUser) {
      for (const u of users.data?.data ?? []) {
        const spent = all.filter((k) => k.owner === u.id).reduce((sum, k) => sum + (k.spent_usd ?? 0), 0);
        map.set(u.id, { spent, budget: u.role === 'operator' ? null : u.budget_usd });
      }
    }
    return map;
  }, [byKey, byUser, keys.data, users.data]);

  const update = (patch: Record<string, string | undefined>) => {
    const next = new URLSearchParams(params);
    for (const [name, value] of Object.entries(patch)) {
      if (value === undefined || value === '') next.delete(name);
      else next.set(name, value);
    }
    setParams(next, { replace: false });
  };
  const refresh = () => {
    series.reload();
    breakdown.reload();
    keys.reload();
  };

  const totals = series.data?.totals;
  const csv = `${base}/usage.csv${queryString({ ...query, group_by: group })}`;
  const groupLabel: Record<GroupBy, string> = { key: 'Key', model: 'Model', channel: 'Channel', user: 'User', user_model: 'User × model', key_model: 'Key × model' };
  const firstColumn = group === 'user_model' ? 'User' : group === 'key_model' ? 'Key' : groupLabel[group];
  const withModel = group === 'user_model' || group === 'key_model';
  const showBudget = group === 'key' || group === 'user';
  const preset = (from: Date, to?: Date) => update({ from: from.toISOString(), to: to?.toISOString() });
  const midnight = () => {
    const d = new Date();
    d.setHours(0, 0, 0, 0);
    return d;
  };

  return (
    <section aria-labelledby="usage-title">
      <div className="page-head">
        <h1 id="usage-title">Usage</h1>
        <div className="row">
          <button type="button" onClick={refresh}>
            Refresh
          </button>
          <a className="button" href={csv} download>
            Export CSV
          </a>
        </div>
      </div>
      <p className="muted">{isOperator ? 'Every key on this gateway.' : 'Your keys.'} Hours and days are UTC; times you enter are local.</p>
      <FilterBar
        key={params.toString()}
        value={filter}
        keys={keys.data?.data ?? []}
        models={models.data?.data ?? []}
        onApply={(value) => update({ from: value.from ?? '', to: value.to, key: value.key, model: value.model })}
      />
      <div className="row" role="group" aria-label="Date range presets">
        <span className="muted">Range:</span>
        <button type="button" onClick={() => preset(midnight())}>
          Today
        </button>
        <button type="button" onClick={() => preset(new Date(Date.now() - 7 * 86_400_000))}>
          Last 7 days
        </button>
        <button type="button" onClick={() => preset(new Date(Date.now() - 30 * 86_400_000))}>
          Last 30 days
        </button>
        <button
          type="button"
          onClick={() => {
            const start = midnight();
            start.setDate(1);
            preset(start);
          }}
        >
          This month
        </button>
      </div>
      <div className="row">
        <label className="inline">
          Chart by
          <select value={bucket} onChange={(e) => update({ bucket: e.target.value })}>
            <option value="day">Day</option>
            <option value="hour">Hour</option>
          </select>
        </label>
        <label className="inline">
          Group table by
          <select value={group} onChange={(e) => update({ group: e.target.value })}>
            <option value="key">Key</option>
            <option value="model">Model</option>
            <option value="channel">Channel</option>
            {isOperator && <option value="user">User</option>}
            {isOperator && <option value="user_model">User × model</option>}
            <option value="key_model">Key × model</option>
          </select>
        </label>
      </div>
      {series.error !== undefined && <ErrorNote error={series.error} retry={series.reload} />}
      {series.loading && !series.data && <Loading what="Loading usage" />}
      {totals && (
        <dl className="cards" aria-label="Totals">
          <div className="card">
            <dt>Requests</dt>
            <dd>{formatCount(totals.requests)}</dd>
          </div>
          <div className="card">
            <dt>Tokens</dt>
            <dd>{formatCount(totals.total_tokens)}</dd>
          </div>
          <div className="card">
            <dt>Cost</dt>
            <dd>{formatUsd(totals.cost_usd)}</dd>
          </div>
          <div className="card">
            <dt>Not successful</dt>
            <dd>{formatCount(Object.entries(totals.by_outcome).reduce((n, [k, v]) => (k === 'success' || k === 'video_completed' ? n : n + v), 0))}</dd>
          </div>
        </dl>
      )}
      {series.data && series.data.totals.requests === 0 && series.data.groups.length === 0 && (
        <Empty>No usage in this period{filter.key || filter.model ? ' for these filters' : ''}. Requests appear here shortly after they finish.</Empty>
      )}
      {series.data && series.data.groups.length > 0 && (
        <Suspense fallback={<Loading what="Loading charts" />}>
          <UsageCharts report={series.data} bucket={bucket} from={filter.from} to={filter.to} />
        </Suspense>
      )}
      <h2 className="section-title">By {groupLabel[group].toLowerCase()}</h2>
      {breakdown.error !== undefined && <ErrorNote error={breakdown.error} retry={breakdown.reload} />}
      {breakdown.data && breakdown.data.groups.length === 0 && <Empty>Nothing to break down yet.</Empty>}
      {breakdown.data && breakdown.data.groups.length > 0 && (
        <DataTable
          caption={`Usage by ${groupLabel[group].toLowerCase()}`}
          columns={[
            firstColumn, withModel && 'Model', { label: 'Requests', className: 'num' }, { label: 'Prompt tokens', className: 'num' }, { label: 'Completion tokens', className: 'num' },
            { label: 'Total tokens', className: 'num' }, { label: 'Images', className: 'num' }, { label: 'Video s', className: 'num' }, { label: 'Cost', className: 'num' },
            showBudget && 'Spent in all / budget',
          ]}
        >
          {breakdown.data.groups.map((g) => {
            const budget = budgets.get(g.group);
            const name = names.get(g.group) ?? g.group;
            return (
              <DataRow key={`${g.group}\u0000${g.model ?? ''}`}>
                <RowHeader title={g.group}>{name || '—'}</RowHeader>
                {withModel && <DataCell label="Model">{g.model || '—'}</DataCell>}
                <DataCell label="Requests" className="num">{formatCount(g.requests)}</DataCell>
                <DataCell label="Prompt tokens" className="num">{formatCount(g.prompt_tokens)}</DataCell>
                <DataCell label="Completion tokens" className="num">{formatCount(g.completion_tokens)}</DataCell>
                <DataCell label="Total tokens" className="num">{formatCount(g.total_tokens)}</DataCell>
                <DataCell label="Images" className="num">{formatCount(g.images)}</DataCell>
                <DataCell label="Video s" className="num">{formatCount(g.video_seconds)}</DataCell>
                <DataCell label="Cost" className="num">{formatUsd(g.cost_usd)}</DataCell>
                {showBudget && <DataCell label="Spent in all / budget">{budget ? <SpendMeter spent={budget.spent} budget={budget.budget} name={name} /> : '—'}</DataCell>}
              </DataRow>
            );
          })}
        </DataTable>
      )}
    </section>
  );
}
