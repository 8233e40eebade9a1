import { ConfirmDialog } from '../../components/confirm-dialog';
import { api } from '../../lib/api';
import type { CreatedKey } from '../../lib/types';
import { useNotify } from '../../shell/notify';
import type { PendingKeyAction } from './keys-table';

interface KeyActionDialogProps {
  action: Exclude<NonNullable<PendingKeyAction>, { kind: 'cache' }>;
  base: string;
  onClose: () => void;
  onRevoked: () => void;
  onRegenerated: (created: CreatedKey) => void;
}

/** Asks before revoking a key or regenerating its secret, saying what each one breaks. */
export function KeyActionDialog({ action, base, onClose, onRevoked, onRegenerated }: KeyActionDialogProps) {
  const notify = useNotify();
  const { key } = action;
  if (action.kind === 'revoke') {
    return (
      <ConfirmDialog
        title={`Revoke “${key.name}”?`}
        confirmLabel="Revoke key"
        danger
        onClose={onClose}
        onConfirm={async () => {
          await api('DELETE', `${base}/keys/${encodeURIComponent(key.id)}`);
          onClose();
          notify(`Key “${key.name}” revoked.`);
          onRevoked();
        }}
      >
        <p>
          Every request with this key will be refused (401) from now on. Revoking cannot be undone; its usage history stays.
        </p>
      </ConfirmDialog>
    );
  }
  return (
    <ConfirmDialog
      title={`Regenerate “${key.name}”?`}
      confirmLabel="Regenerate secret"
      onClose={onClose}
      onConfirm={async () => {
        const created = await api<CreatedKey>('POST', `${base}/keys/${encodeURIComponent(key.id)}/regenerate`);
        onClose();
        onRegenerated(created);
      }}
    >
      <p>The key gets a new secret, shown once. The current secret stops working at once: update every program that uses it.</p>
    </ConfirmDialog>
  );
}
