import { DataCell, DataRow, DataTable, RowHeader } from '../../components/data-table';
import { SpendMeter } from '../../components/spend-meter';
import { formatCount, formatUsd } from '../../lib/format';
import type { UsageReport } from '../../lib/types';
import { GROUP_LABEL, type GroupBy } from './usage-group';
import type { GroupSpend } from './use-group-names';

interface UsageBreakdownProps {
  report: UsageReport;
  group: GroupBy;
  names: ReadonlyMap<string, string>;
  budgets: ReadonlyMap<string, GroupSpend>;
}

/** The breakdown table: one row per group (and model, for the "× model" groupings), budgets beside keys and people. */
export function UsageBreakdown({ report, group, names, budgets }: UsageBreakdownProps) {
  const firstColumn = group === 'user_model' ? 'User' : group === 'key_model' ? 'Key' : GROUP_LABEL[group];
  const withModel = group === 'user_model' || group === 'key_model';
  const showBudget = group === 'key' || group === 'user';
  return (
    <DataTable
      caption={`Usage by ${GROUP_LABEL[group].toLowerCase()}`}
      columns={[
        firstColumn, withModel && 'Model', { label: 'Requests', className: 'num' }, { label: 'Prompt tokens', className: 'num' }, { label: 'Cached input', className: 'num' },
        { label: 'Cache writes', className: 'num' }, { label: 'Completion tokens', className: 'num' }, { label: 'Reasoning', className: 'num' }, { label: 'Total tokens', className: 'num' }, { label: 'Images', className: 'num' }, { label: 'Video s', className: 'num' }, { label: 'Cost', className: 'num' },
        showBudget && 'Spent in all / budget',
      ]}
    >
      {report.groups.map((g) => {
        const budget = budgets.get(g.group);
        const name = names.get(g.group) ?? g.group;
        return (
          <DataRow key={`${g.group}\u0000${g.model ?? ''}`}>
            <RowHeader title={g.group}>{name || '—'}</RowHeader>
            {withModel && <DataCell label="Model">{g.model || '—'}</DataCell>}
            <DataCell label="Requests" className="num">{formatCount(g.requests)}</DataCell>
            <DataCell label="Prompt tokens" className="num">{formatCount(g.prompt_tokens)}</DataCell>
            <DataCell label="Cached input" className="num">{formatCount(g.cached_input_tokens)}</DataCell>
            <DataCell label="Cache writes" className="num" title={`5-minute cache ${formatCount(g.cache_write_5m_tokens)}, 1-hour cache ${formatCount(g.cache_write_1h_tokens)}`}>
              {formatCount(g.cache_write_5m_tokens + g.cache_write_1h_tokens)}
            </DataCell>
            <DataCell label="Completion tokens" className="num">{formatCount(g.completion_tokens)}</DataCell>
            <DataCell label="Reasoning" className="num">{formatCount(g.reasoning_tokens)}</DataCell>
            <DataCell label="Total tokens" className="num">{formatCount(g.total_tokens)}</DataCell>
            <DataCell label="Images" className="num">{formatCount(g.images)}</DataCell>
            <DataCell label="Video s" className="num">{formatCount(g.video_seconds)}</DataCell>
            <DataCell label="Cost" className="num">{formatUsd(g.cost_usd)}</DataCell>
            {showBudget && <DataCell label="Spent in all / budget">{budget ? <SpendMeter spent={budget.spent} budget={budget.budget} name={name} /> : '—'}</DataCell>}
          </DataRow>
        );
      })}
    </DataTable>
  );
}
