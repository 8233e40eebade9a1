import { useState, type FormEvent } from 'react';
import { Dialog } from '../../components/dialog';
import { api, messageOf } from '../../lib/api';
import type { ApiKey } from '../../lib/types';

interface KeyCacheDialogProps {
  keyRow: ApiKey;
  base: string;
  isOperator: boolean;
  onClose: () => void;
  onSaved: (message: string) => void;
}

type Switch = 'follow' | 'on' | 'off';

const switchOf = (value: boolean | null | undefined): Switch => (value === true ? 'on' : value === false ? 'off' : 'follow');
const SWITCH_VALUE: Record<Switch, boolean | null> = { follow: null, on: true, off: false };

/**
 * A key's response cache (issue 32): its switch and default TTL, the shared namespace (operators
 * only: it reads other tenants' answers), and a purge of the answers the key reads.
 */
export function KeyCacheDialog({ keyRow, base, isOperator, onClose, onSaved }: KeyCacheDialogProps) {
  const [mode, setMode] = useState<Switch>(switchOf(keyRow.cache_enabled));
  const [ttl, setTtl] = useState(keyRow.cache_ttl_seconds === null || keyRow.cache_ttl_seconds === undefined ? '' : String(keyRow.cache_ttl_seconds));
  const [namespace, setNamespace] = useState(keyRow.cache_namespace ?? '');
  const [matchMode, setMatchMode] = useState(keyRow.cache_mode ?? 'follow');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const run = async (action: () => Promise<string>) => {
    setError(undefined);
    setBusy(true);
    try {
      onSaved(await action());
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };

  const save = (event: FormEvent) => {
    event.preventDefault();
    const body: Record<string, unknown> = {
      cache_enabled: SWITCH_VALUE[mode],
      cache_ttl_seconds: ttl.trim() === '' ? null : Number(ttl),
      cache_mode: matchMode === 'follow' ? null : matchMode,
    };
    if (isOperator) body.cache_namespace = namespace.trim() === '' ? null : namespace.trim();
    void run(async () => {
      await api('PATCH', `${base}/keys/${encodeURIComponent(keyRow.id)}`, body);
      return `Cache settings of “${keyRow.name}” saved.`;
    });
  };

  const purge = () =>
    void run(async () => {
      const path = isOperator ? `/admin/api/cache?key_id=${encodeURIComponent(keyRow.id)}` : `/console/api/keys/${encodeURIComponent(keyRow.id)}/cache`;
      const answer = await api<{ deleted: number }>('DELETE', path);
      return `${answer.deleted} cached answer${answer.deleted === 1 ? '' : 's'} of “${keyRow.name}” purged.`;
    });

  return (
    <Dialog title={`Response cache of “${keyRow.name}”`} onClose={onClose}>
      <form className="form" onSubmit={save}>
        <label>
          Caching
          <select value={mode} onChange={(e) => setMode(e.target.value as Switch)} data-autofocus>
            <option value="follow">Follow the model's or the global setting</option>
            <option value="on">On for this key</option>
            <option value="off">Off for this key</option>
          </select>
          <span className="hint">The same model and request body get the stored answer, with x-cache: HIT.</span>
        </label>
        <label>
          Match
          <select value={matchMode} onChange={(e) => setMatchMode(e.target.value as typeof matchMode)}>
            <option value="follow">Follow the model's or the global mode</option>
            <option value="exact">Exact: the same request only</option>
            <option value="semantic">Semantic: also the same question worded differently</option>
          </select>
        </label>
        <label>
          Default TTL (seconds)
          <input type="number" min={1} max={31536000} step={1} inputMode="numeric" value={ttl} onChange={(e) => setTtl(e.target.value)} placeholder="the model's or global TTL" />
        </label>
        {isOperator && (
          <label>
            Shared namespace
            <input maxLength={64} pattern="[A-Za-z0-9._:@/+\-]+" value={namespace} onChange={(e) => setNamespace(e.target.value)} placeholder="none: the owner's own entries" />
            <span className="hint">Every key with the same namespace reads the same answers, across owners.</span>
          </label>
        )}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" className="danger" onClick={purge} disabled={busy}>
            Purge cached answers
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy}>
            Save
          </button>
        </div>
      </form>
    </Dialog>
  );
}
