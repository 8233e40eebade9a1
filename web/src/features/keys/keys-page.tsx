import { useState } from 'react';
import { Link } from 'react-router';
import { apiBase, useUser } from '../../shell/session';
import { useNotify } from '../../shell/notify';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { Empty, ErrorNote, StatusBadge } from '../../components/states';
import { Loading } from '../../shell/loading';
import { api, messageOf, queryString } from '../../lib/api';
import { formatCount, formatTime, formatUsd, listOrAll } from '../../lib/format';
import { usePageTitle } from '../../lib/page-title';
import { rememberSecret } from '../../lib/tab-secrets';
import type { ApiKey, ConsoleModel, CreatedKey, ListAnswer, User } from '../../lib/types';
import { useLoad } from '../../lib/use-load';
import { CreateKeyDialog } from './create-key-dialog';
import { SecretDialog } from './secret-dialog';
import { SpendMeter } from '../../components/spend-meter';
import { ActionsCell, DataCell, DataRow, DataTable, RowHeader } from '../../components/data-table';

/** What the listed keys spent, against the person's allowance (their budget cap and rate limits per key). */
function SpendSummary({ user, keys, isOperator }: { user: User; keys: readonly ApiKey[]; isOperator: boolean }) {
  const month = keys.reduce((sum, key) => sum + key.spent_month_usd, 0);
  const total = keys.reduce((sum, key) => sum + (key.spent_usd ?? 0), 0);
  const caps = [
    user.budget_usd === null ? 'no budget cap' : `a budget of at most ${formatUsd(user.budget_usd)} per key`,
    user.rpm === null ? null : `${formatCount(user.rpm)} requests a minute`,
    user.tpm === null ? null : `${formatCount(user.tpm)} tokens a minute`,
  ].filter(Boolean);
  return (
    <p className="note" aria-label="Spending">
      {isOperator ? 'The keys listed' : 'Your keys listed'} spent <strong>{formatUsd(month)}</strong> this month and <strong>{formatUsd(total)}</strong> in all.
      {!isOperator && ` Your allowance: ${caps.join(', ')}.`}
    </p>
  );
}

/** Keys per page (the API's paged list, issue 22). */
const PAGE_SIZE = 25;

type KeyPage = ListAnswer<ApiKey> & { total?: number; next_offset?: number | null };

type Pending = { kind: 'revoke' | 'regenerate'; key: ApiKey } | undefined;

const limits = (key: ApiKey) => `${key.rpm ?? '∞'} / ${key.tpm === null ? '∞' : formatCount(key.tpm)}`;

/** /console/token: the signed-in person's keys (operators: every key), created, paused, rotated and revoked here. */
export function KeysPage() {
  usePageTitle('API keys');
  const user = useUser();
  const base = apiBase(user);
  const isOperator = user.role === 'operator';
  const notify = useNotify();
  const [showRevoked, setShowRevoked] = useState(false);
  const [search, setSearch] = useState('');
  const [q, setQ] = useState('');
  const [offset, setOffset] = useState(0);
  const keys = useLoad(
    (signal) => api<KeyPage>('GET', `${base}/keys${queryString({ q: q || undefined, limit: PAGE_SIZE, offset: offset || undefined, include_revoked: String(showRevoked) })}`, undefined, { signal }),
    [base, q, offset, showRevoked],
  );
  const models = useLoad((signal) => api<ListAnswer<ConsoleModel>>('GET', '/console/api/models', undefined, { signal }), []);
  const owners = useLoad((signal) => (isOperator ? api<ListAnswer<User>>('GET', '/admin/api/users', undefined, { signal }) : Promise.resolve({ data: [user] })), [isOperator]);
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<CreatedKey>();
  const [pending, setPending] = useState<Pending>();

  const chatModel = (key: ApiKey) => key.models?.[0] ?? models.data?.data.find((m) => m.families.includes('chat-completions'))?.id ?? 'delta-4.1';
  const showSecret = (created: CreatedKey) => {
    rememberSecret({ keyId: created.id, name: created.name, secret: created.key });
    setSecret(created);
    keys.reload();
  };

  const setDisabled = async (key: ApiKey, disabled: boolean) => {
    try {
      await api('PATCH', `${base}/keys/${encodeURIComponent(key.id)}`, { disabled });
      notify(`Key “${key.name}” ${disabled ? 'disabled: it answers 401 until re-enabled' : 're-enabled'}.`);
      keys.reload();
    } catch (error) {
      notify(messageOf(error), 'error');
    }
  };

  const rows = keys.data?.data ?? [];
  const total = keys.data?.total ?? rows.length;

  return (
    <section aria-labelledby="keys-title">
      <div className="page-head">
        <h1 id="keys-title">API keys</h1>
        <button type="button" className="primary" onClick={() => setCreating(true)} disabled={!models.data}>
          Create key
        </button>
      </div>
      <p className="muted">
        {isOperator ? 'Every key on this gateway.' : 'Your keys.'} Secrets are shown once, when a key is created or regenerated. Use a key as{' '}
        <code>Authorization: Bearer …</code> on <code>{window.location.origin}/v1</code>.
      </p>
      {keys.data && <SpendSummary user={user} keys={rows} isOperator={isOperator} />}
      <form
        className="row"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setOffset(0);
          setQ(search.trim());
        }}
      >
        <label className="inline">
          Search keys
          <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="Part of a name" style={{ width: '14rem' }} />
        </label>
        <button type="submit">Search</button>
        <label className="inline">
          <input
            type="checkbox"
            checked={showRevoked}
            onChange={(e) => {
              setOffset(0);
              setShowRevoked(e.target.checked);
            }}
          />{' '}
          Show revoked keys
        </label>
      </form>
      {keys.error !== undefined && <ErrorNote error={keys.error} retry={keys.reload} />}
      {models.error !== undefined && <ErrorNote error={models.error} retry={models.reload} />}
      {keys.loading && !keys.data && <Loading what="Loading keys" />}
      {keys.data && rows.length === 0 && q && <Empty>No key name contains “{q}”.</Empty>}
      {keys.data && rows.length === 0 && !q && (
        <Empty>
          <strong>No keys yet.</strong> Create one to call the gateway; you will see its secret once.
        </Empty>
      )}
      {rows.length > 0 && (
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
                <SpendMeter spent={key.spent_usd ?? key.spent_month_usd} budget={key.budget_usd} name={key.name} />
              </DataCell>
              <DataCell label="Last used" title={key.last_used_at ?? undefined}>
                {key.last_used_at ? formatTime(key.last_used_at) : 'Never'}
              </DataCell>
              <DataCell label="Spent this month">{formatUsd(key.spent_month_usd)}</DataCell>
              <DataCell label="Status">
                <StatusBadge status={key.status} />
              </DataCell>
              <ActionsCell>
                {key.status !== 'revoked' && (
                  <>
                    {key.disabled ? (
                      <button type="button" onClick={() => void setDisabled(key, false)} aria-label={`Enable ${key.name}`}>
                        Enable
                      </button>
                    ) : (
                      <button type="button" onClick={() => void setDisabled(key, true)} aria-label={`Disable ${key.name}`}>
                        Disable
                      </button>
                    )}
                    <button type="button" onClick={() => setPending({ kind: 'regenerate', key })} aria-label={`Regenerate ${key.name}`}>
                      Regenerate
                    </button>
                    <button type="button" className="danger" onClick={() => setPending({ kind: 'revoke', key })} aria-label={`Revoke ${key.name}`}>
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
      )}
      {keys.data && total > PAGE_SIZE && (
        <nav className="row pager" aria-label="Key pages">
          <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
            Previous
          </button>
          <span className="muted">
            {offset + 1}–{offset + rows.length} of {total}
          </span>
          <button type="button" disabled={keys.data.next_offset === null || keys.data.next_offset === undefined} onClick={() => setOffset(keys.data?.next_offset ?? offset)}>
            Next
          </button>
        </nav>
      )}
      {creating && models.data && (
        <CreateKeyDialog
          user={user}
          base={base}
          models={models.data.data}
          owners={owners.data?.data ?? [user]}
          onClose={() => setCreating(false)}
          onCreated={(created) => {
            setCreating(false);
            showSecret(created);
          }}
        />
      )}
      {secret && <SecretDialog created={secret} model={chatModel(secret)} onClose={() => setSecret(undefined)} />}
      {pending?.kind === 'revoke' && (
        <ConfirmDialog
          title={`Revoke “${pending.key.name}”?`}
          confirmLabel="Revoke key"
          danger
          onClose={() => setPending(undefined)}
          onConfirm={async () => {
            await api('DELETE', `${base}/keys/${encodeURIComponent(pending.key.id)}`);
            setPending(undefined);
            notify(`Key “${pending.key.name}” revoked.`);
            keys.reload();
          }}
        >
          <p>
            Every request with this key will be refused (401) from now on. Revoking cannot be undone; its usage history stays.
          </p>
        </ConfirmDialog>
      )}
      {pending?.kind === 'regenerate' && (
        <ConfirmDialog
          title={`Regenerate “${pending.key.name}”?`}
          confirmLabel="Regenerate secret"
          onClose={() => setPending(undefined)}
          onConfirm={async () => {
            const created = await api<CreatedKey>('POST', `${base}/keys/${encodeURIComponent(pending.key.id)}/regenerate`);
            setPending(undefined);
            showSecret(created);
          }}
        >
          <p>The key gets a new secret, shown once. The current secret stops working at once: update every program that uses it.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
