import { useState } from 'react';
import { Empty, ErrorNote } from '../../components/states';
import { api, messageOf, queryString } from '../../lib/api';
import { usePageTitle } from '../../lib/page-title';
import { rememberSecret } from '../../lib/tab-secrets';
import type { ApiKey, ConsoleModel, CreatedKey, ListAnswer, User } from '../../lib/types';
import { useLoad } from '../../lib/use-load';
import { Loading } from '../../shell/loading';
import { useNotify } from '../../shell/notify';
import { apiBase, useUser } from '../../shell/session';
import { CreateKeyDialog } from './create-key-dialog';
import { KeyActionDialog } from './key-action-dialog';
import { KeyCacheDialog } from './key-cache-dialog';
import { McpGrantDialog } from './mcp-grant-dialog';
import { KeyPager } from './key-pager';
import { KeySearch } from './key-search';
import { KeysTable, type PendingKeyAction } from './keys-table';
import { SecretDialog } from './secret-dialog';
import { SpendSummary } from './spend-summary';

/** Keys per page (the API's paged list, issue 22). */
const PAGE_SIZE = 25;

type KeyPage = ListAnswer<ApiKey> & { total?: number; next_offset?: number | null };

/** /console/token: the signed-in person's keys (operators: every key), created, paused, rotated and revoked here. */
export function KeysPage() {
  usePageTitle('API keys');
  const user = useUser();
  const base = apiBase(user);
  const isOperator = user.role === 'operator';
  const notify = useNotify();
  const [showRevoked, setShowRevoked] = useState(false);
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
  const [pending, setPending] = useState<PendingKeyAction>();
  const [editingMcp, setEditingMcp] = useState<ApiKey>();

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
      <KeySearch
        showRevoked={showRevoked}
        onSearch={(text) => {
          setOffset(0);
          setQ(text);
        }}
        onShowRevoked={(show) => {
          setOffset(0);
          setShowRevoked(show);
        }}
      />
      {keys.error !== undefined && <ErrorNote error={keys.error} retry={keys.reload} />}
      {models.error !== undefined && <ErrorNote error={models.error} retry={models.reload} />}
      {keys.loading && !keys.data && <Loading what="Loading keys" />}
      {keys.data && rows.length === 0 && q && <Empty>No key name contains “{q}”.</Empty>}
      {keys.data && rows.length === 0 && !q && (
        <Empty>
          <strong>No keys yet.</strong> Create one to call the gateway; you will see its secret once.
        </Empty>
      )}
      {rows.length > 0 && <KeysTable rows={rows} total={total} isOperator={isOperator} onSetDisabled={(key, disabled) => void setDisabled(key, disabled)} onConfirm={setPending} onEditMcp={setEditingMcp} />}
      {keys.data && total > PAGE_SIZE && <KeyPager offset={offset} shown={rows.length} total={total} pageSize={PAGE_SIZE} nextOffset={keys.data.next_offset} onOffset={setOffset} />}
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
      {pending?.kind === 'cache' && (
        <KeyCacheDialog
          keyRow={pending.key}
          base={base}
          isOperator={isOperator}
          onClose={() => setPending(undefined)}
          onSaved={(message) => {
            setPending(undefined);
            notify(message);
            keys.reload();
          }}
        />
      )}
      {editingMcp && <McpGrantDialog apiKey={editingMcp} base={base} onClose={() => setEditingMcp(undefined)} onSaved={keys.reload} />}
      {pending && pending.kind !== 'cache' && <KeyActionDialog action={pending} base={base} onClose={() => setPending(undefined)} onRevoked={keys.reload} onRegenerated={showSecret} />}
    </section>
  );
}
