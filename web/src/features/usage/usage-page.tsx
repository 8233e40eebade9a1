import { lazy, Suspense, useState } from 'react';
import { useSearchParams } from 'react-router';
import { DateRangePresets } from '../../components/date-range-presets';
import { Empty, ErrorNote } from '../../components/states';
import { FilterBar, type UsageFilter } from '../../components/usage-filters';
import { api, queryString } from '../../lib/api';
import { usePageTitle } from '../../lib/page-title';
import type { ApiKey, ConsoleModel, ListAnswer, UsageReport, User } from '../../lib/types';
import { useLoad } from '../../lib/use-load';
import { Loading } from '../../shell/loading';
import { apiBase, useUser } from '../../shell/session';
import type { Bucket } from './usage-charts';
import { UsageBreakdown } from './usage-breakdown';
import { GROUP_LABEL, groupFromParam } from './usage-group';
import { UsageTotalsCards } from './usage-totals';
import { UsageViewControls } from './usage-view-controls';
import { useGroupNames } from './use-group-names';

const UsageCharts = lazy(() => import('./usage-charts'));

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
  const group = groupFromParam(params.get('group'), isOperator);
  const query = { from: filter.from, to: filter.to, key: filter.key, model: filter.model };

  const keys = useLoad((signal) => api<ListAnswer<ApiKey>>('GET', `${base}/keys`, undefined, { signal }), [base]);
  const models = useLoad((signal) => api<ListAnswer<ConsoleModel>>('GET', '/console/api/models', undefined, { signal }), []);
  const users = useLoad((signal) => (isOperator ? api<ListAnswer<User>>('GET', '/admin/api/users', undefined, { signal }) : Promise.resolve({ data: [] as User[] })), [isOperator]);
  const series = useLoad((signal) => api<UsageReport>('GET', `${base}/usage${queryString({ ...query, group_by: bucket })}`, undefined, { signal }), [base, bucket, ...Object.values(query)]);
  const breakdown = useLoad((signal) => api<UsageReport>('GET', `${base}/usage${queryString({ ...query, group_by: group })}`, undefined, { signal }), [base, group, ...Object.values(query)]);
  const { names, budgets } = useGroupNames(group, keys.data?.data, users.data?.data);

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
      <DateRangePresets onPick={(from, to) => update({ from: from.toISOString(), to: to?.toISOString() })} />
      <UsageViewControls bucket={bucket} group={group} isOperator={isOperator} onChange={update} />
      {series.error !== undefined && <ErrorNote error={series.error} retry={series.reload} />}
      {series.loading && !series.data && <Loading what="Loading usage" />}
      {totals && <UsageTotalsCards totals={totals} />}
      {series.data && series.data.totals.requests === 0 && series.data.groups.length === 0 && (
        <Empty>No usage in this period{filter.key || filter.model ? ' for these filters' : ''}. Requests appear here shortly after they finish.</Empty>
      )}
      {series.data && series.data.groups.length > 0 && (
        <Suspense fallback={<Loading what="Loading charts" />}>
          <UsageCharts report={series.data} bucket={bucket} from={filter.from} to={filter.to} />
        </Suspense>
      )}
      <h2 className="section-title">By {GROUP_LABEL[group].toLowerCase()}</h2>
      {breakdown.error !== undefined && <ErrorNote error={breakdown.error} retry={breakdown.reload} />}
      {breakdown.data && breakdown.data.groups.length === 0 && <Empty>Nothing to break down yet.</Empty>}
      {breakdown.data && breakdown.data.groups.length > 0 && <UsageBreakdown report={breakdown.data} group={group} names={names} budgets={budgets} />}
    </section>
  );
}
