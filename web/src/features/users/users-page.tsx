import { useState } from 'react';
import { useNotify } from '../../shell/notify';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { Dialog } from '../../components/dialog';
import { ActionsCell, DataCell, DataRow, DataTable, RowHeader } from '../../components/data-table';
import { Empty, ErrorNote, StatusBadge } from '../../components/states';
import { Loading } from '../../shell/loading';
import { api, messageOf } from '../../lib/api';
import { formatCount, formatTime, listOrAll, userBudgetWords } from '../../lib/format';
import { usePageTitle } from '../../lib/page-title';
import type { ConsoleModel, Invitation, ListAnswer, User } from '../../lib/types';
import { useLoad } from '../../lib/use-load';
import { EditUserDialog, InvitationLink, InviteUserDialog } from './user-dialogs';

type Open = { kind: 'invite' } | { kind: 'edit' | 'remove'; user: User } | { kind: 'link'; invitation: Invitation } | undefined;

const statusOf = (user: User) => (user.disabled ? 'disabled' : user.has_password || user.id === 'operator' ? 'active' : 'invited');

function allowance(user: User): string {
  if (user.role === 'operator') return 'Operator: no allowance';
  const parts = [
    `budget ${user.budget_usd === null ? 'none' : userBudgetWords(user.budget_usd, 'their')}`,
    `rpm ${user.rpm ?? '∞'}`,
    `tpm ${user.tpm === null ? '∞' : formatCount(user.tpm)}`,
    `models ${listOrAll(user.models)}`,
    `families ${listOrAll(user.families)}`,
  ];
  return parts.join(' · ');
}

/** Operators: people, invitations and each person's allowance. */
export function UsersPage() {
  usePageTitle('Users');
  const notify = useNotify();
  const users = useLoad((signal) => api<ListAnswer<User>>('GET', '/admin/api/users', undefined, { signal }), []);
  const models = useLoad((signal) => api<ListAnswer<ConsoleModel>>('GET', '/console/api/models', undefined, { signal }), []);
  const [open, setOpen] = useState<Open>();

  const patch = async (user: User, body: Record<string, unknown>, done: string) => {
    try {
      await api('PATCH', `/admin/api/users/${encodeURIComponent(user.id)}`, body);
      notify(done);
      users.reload();
    } catch (error) {
      notify(messageOf(error), 'error');
    }
  };
  const newLink = async (user: User) => {
    try {
      setOpen({ kind: 'link', invitation: await api<Invitation>('POST', `/admin/api/users/${encodeURIComponent(user.id)}/invite`) });
      users.reload();
    } catch (error) {
      notify(messageOf(error), 'error');
    }
  };

  const list = users.data?.data ?? [];
  return (
    <section aria-labelledby="users-title">
      <div className="page-head">
        <h1 id="users-title">Users</h1>
        <button type="button" className="primary" onClick={() => setOpen({ kind: 'invite' })} disabled={!models.data}>
          Invite person
        </button>
      </div>
      <p className="muted">Key holders manage their own keys within the allowance you give them. A new invitation link also resets a forgotten password.</p>
      {users.error !== undefined && <ErrorNote error={users.error} retry={users.reload} />}
      {users.loading && !users.data && <Loading what="Loading users" />}
      {users.data && list.length === 0 && <Empty>No users yet.</Empty>}
      {list.length > 0 && (
        <DataTable caption={`Users (${list.length})`} columns={['Name', 'Email', 'Role', 'Status', 'Allowance', 'Since', { label: 'Actions', hidden: true }]}>
          {list.map((user) => (
            <DataRow key={user.id}>
              <RowHeader className="name-cell">{user.name}</RowHeader>
              <DataCell label="Email">{user.email ?? '—'}</DataCell>
              <DataCell label="Role">{user.role === 'operator' ? 'operator' : 'key holder'}</DataCell>
              <DataCell label="Status">
                <StatusBadge status={statusOf(user)} />
              </DataCell>
              <DataCell label="Allowance" className="clip" title={allowance(user)}>
                {allowance(user)}
              </DataCell>
              <DataCell label="Since">{formatTime(user.created_at)}</DataCell>
              <ActionsCell>
                <button type="button" onClick={() => setOpen({ kind: 'edit', user })} aria-label={`Edit ${user.name}`}>
                  Edit
                </button>
                {user.id !== 'operator' && (
                  <>
                    <button type="button" onClick={() => void newLink(user)} aria-label={`New invitation link for ${user.name}`}>
                      New link
                    </button>
                    <button
                      type="button"
                      onClick={() => void patch(user, { disabled: !user.disabled }, user.disabled ? `${user.name} re-enabled.` : `${user.name} disabled: signed out, keys refused.`)}
                      aria-label={`${user.disabled ? 'Enable' : 'Disable'} ${user.name}`}
                    >
                      {user.disabled ? 'Enable' : 'Disable'}
                    </button>
                    <button type="button" className="danger" onClick={() => setOpen({ kind: 'remove', user })} aria-label={`Remove ${user.name}`}>
                      Remove
                    </button>
                  </>
                )}
              </ActionsCell>
            </DataRow>
          ))}
        </DataTable>
      )}
      {open?.kind === 'invite' && models.data && <InviteUserDialog models={models.data.data} onInvited={users.reload} onClose={() => setOpen(undefined)} />}
      {open?.kind === 'edit' && models.data && (
        <EditUserDialog
          user={open.user}
          models={models.data.data}
          onClose={() => setOpen(undefined)}
          onSaved={() => {
            notify(`${open.user.name} saved.`);
            setOpen(undefined);
            users.reload();
          }}
        />
      )}
      {open?.kind === 'link' && (
        <Dialog title="New invitation link" onClose={() => setOpen(undefined)}>
          <InvitationLink invitation={open.invitation} />
          <p className="hint">Earlier unused links for this person no longer work.</p>
        </Dialog>
      )}
      {open?.kind === 'remove' && (
        <ConfirmDialog
          title={`Remove ${open.user.name}?`}
          confirmLabel="Remove user"
          danger
          onClose={() => setOpen(undefined)}
          onConfirm={async () => {
            await api('DELETE', `/admin/api/users/${encodeURIComponent(open.user.id)}`);
            notify(`${open.user.name} removed; their keys are revoked.`);
            setOpen(undefined);
            users.reload();
          }}
        >
          <p>Their keys are revoked and their sessions end. Their usage history stays. This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
