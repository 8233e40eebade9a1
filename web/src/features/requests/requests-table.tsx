import { ActionsCell, DataCell, DataRow, DataTable, RowHeader } from '../../components/data-table';
import { formatCount, formatMs, formatSeconds, formatUsd } from '../../lib/format';
import type { RequestEntry } from '../../lib/log-types';

const failed = (entry: RequestEntry) => entry.outcome !== 'success' || (typeof entry.status === 'number' && entry.status >= 400);

interface RequestsTableProps {
  rows: readonly RequestEntry[];
  isOperator: boolean;
  userName: (id: string | null) => string;
  onDetails: (id: string) => void;
}

/** The loaded requests, one row each, with a button that opens a request's details. */
export function RequestsTable({ rows, isOperator, userName, onDetails }: RequestsTableProps) {
  return (
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
            {entry.cache_hit && <span className="badge badge-enabled">cache hit</span>}
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
            <button type="button" onClick={() => onDetails(entry.id)} aria-label={`Details of request ${entry.id}`}>
              Details
            </button>
          </ActionsCell>
        </DataRow>
      ))}
    </DataTable>
  );
}
