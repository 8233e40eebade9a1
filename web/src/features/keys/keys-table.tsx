import { Link } from 'react-router';
import { ActionsCell, DataCell, DataRow, DataTable, RowHeader } from '../../components/data-table';
import { SpendMeter } from '../../components/spend-meter';
import { StatusBadge } from '../../components/states';
import { formatCount, formatSeconds, formatTime, formatUsd, listOrAll } from '../../lib/format';
import type { ApiKey } from '../../lib/types';

/** What a row's Regenerate or Revoke button asks the page to confirm. */
export type PendingKeyAction = { kind: 'revoke'; key: ApiKey } | { kind: 'regenerate'; key: ApiKey } | { kind: 'cache'; key: ApiKey } | undefined;

const limits = (key: ApiKey) => `${key.rpm ?? '∞'} / ${key.tpm === null ? '∞' : formatCount(key.tpm)}`;

interface KeysTableProps {
  rows: readonly ApiKey[];
  total: number;
  isOperator: boolean;
  onSetDisabled: (key: ApiKey, disabled: boolean) => void;
  onConfirm: (action: PendingKeyAction) => void;
  /** Operators: edit the key's MCP grant. */
  onEditMcp: (key: ApiKey) => void;
}

/** One page of keys with their limits, spend and row actions (a revoked key keeps only its usage link). */
export function KeysTable({ rows, total, isOperator, onSetDisabled, onConfirm, onEditMcp }: KeysTableProps) {
  return (
    <DataTable
      caption={`API keys (${rows.length} of ${total})`}
      columns={['Name', 'Prefix', isOperator && 'Owner', 'Models', 'Limits rpm / tpm', 'Spent / budget', 'Last used', 'Spent this month', 'Status', { label: 'Actions', hidden: true }]}
    >
      {rows.map((key) => (
        <DataRow key={key.id}>
          <RowHeader className="name-cell" title={key.name}>
            {key.name}
          </RowHeader>
          <DataCell label="Prefix" className="mono">
            {key.prefix}…
          </DataCell>
          {isOperator && <DataCell label="Owner">{key.owner_email ?? key.owner}</DataCell>}
          <DataCell label="Models" className="clip" title={listOrAll(key.models, 'All models')}>
            {key.models === null ? 'All models' : `${key.models.length}: ${key.models.join(', ')}`}
          </DataCell>
          <DataCell label="Limits rpm / tpm">{limits(key)}</DataCell>
          <DataCell label="Spent / budget">
            <SpendMeter spent={key.spent_usd ?? key.spent_month_usd} budget={key.budget_usd} held={key.held_usd} name={key.name} />
          </DataCell>
          <DataCell label="Last used" title={key.last_used_at ?? undefined}>
            {key.last_used_at ? formatTime(key.last_used_at) : 'Never'}
          </DataCell>
          <DataCell label="Spent this month">{formatUsd(key.spent_month_usd)}</DataCell>
          <DataCell label="Status">
            <StatusBadge status={shownStatus(key)} title={limitedWords(key)} />
          </DataCell>
          <ActionsCell>
            {key.status !== 'revoked' && (
              <>
                {key.disabled ? (
                  <button type="button" onClick={() => onSetDisabled(key, false)} aria-label={`Enable ${key.name}`}>
                    Enable
                  </button>
                ) : (
                  <button type="button" onClick={() => onSetDisabled(key, true)} aria-label={`Disable ${key.name}`}>
                    Disable
                  </button>
                )}
                <button type="button" onClick={() => onConfirm({ kind: 'cache', key })} aria-label={`Cache of ${key.name}`}>
                  Cache{key.cache_enabled === true ? ' (on)' : ''}
                </button>
                {isOperator && (
                  <button type="button" onClick={() => onEditMcp(key)} aria-label={`MCP access of ${key.name}`}>
                    MCP
                  </button>
                )}
                <button type="button" onClick={() => onConfirm({ kind: 'regenerate', key })} aria-label={`Regenerate ${key.name}`}>
                  Regenerate
                </button>
                <button type="button" className="danger" onClick={() => onConfirm({ kind: 'revoke', key })} aria-label={`Revoke ${key.name}`}>
                  Revoke
                </button>
              </>
            )}
            <Link to={`/usage?key=${encodeURIComponent(key.id)}`} aria-label={`Usage of ${key.name}`}>
              Usage
            </Link>
          </ActionsCell>
        </DataRow>
      ))}
    </DataTable>
  );
}

/**
 * An active key whose budget is used up answers nothing but refusals (issue 35): it reads
 * "budget spent", not "active". The spend shown is the one the budget counts.
 */
function shownStatus(key: ApiKey): string {
  const spent = key.spent_usd ?? key.spent_month_usd;
  if (key.status !== 'active') return key.status;
  if (key.budget_usd !== null && spent >= key.budget_usd) return 'budget_spent';
  // A used-up rpm/tpm window (issue 35): refused until the window ends, then active again.
  return limitedWords(key) ? 'rate_limited' : key.status;
}

/** Which window is used up and until when, or undefined when none is (any more). */
function limitedWords(key: ApiKey): string | undefined {
  const limited = key.rate_limited;
  if (!limited || key.status !== 'active' || Date.parse(limited.until) <= Date.now()) return undefined;
  const what = `${formatCount(limited.limit)} ${limited.kind === 'requests' ? 'request' : 'token'}${limited.limit === 1 ? '' : 's'}`;
  return `${what} a minute used up on ${limited.model} until ${formatSeconds(limited.until)}`;
}
