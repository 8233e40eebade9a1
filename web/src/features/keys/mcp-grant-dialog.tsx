import { useState } from 'react';
import { Dialog } from '../../components/dialog';
import { api, messageOf } from '../../lib/api';
import type { ApiKey } from '../../lib/types';
import { useNotify } from '../../shell/notify';
import { McpGrantPicker, type McpGrant } from './mcp-grant-picker';

interface McpGrantDialogProps {
  apiKey: ApiKey;
  base: string;
  onClose: () => void;
  onSaved: () => void;
}

/** Edits a key's MCP grant (operators): the change applies at the key's next call, on every instance. */
export function McpGrantDialog({ apiKey, base, onClose, onSaved }: McpGrantDialogProps) {
  const notify = useNotify();
  const [grant, setGrant] = useState<McpGrant>(apiKey.mcp ?? {});
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const save = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await api('PATCH', `${base}/keys/${encodeURIComponent(apiKey.id)}`, { mcp: Object.keys(grant).length > 0 ? grant : null });
      onClose();
      notify(`MCP access of “${apiKey.name}” saved.`);
      onSaved();
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };
  return (
    <Dialog title={`MCP access of “${apiKey.name}”`} onClose={onClose} wide>
      <McpGrantPicker value={grant} onChange={setGrant} />
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" onClick={onClose} data-autofocus>
          Cancel
        </button>
        <button type="button" className="primary" onClick={() => void save()} disabled={busy}>
          Save MCP access
        </button>
      </div>
    </Dialog>
  );
}
