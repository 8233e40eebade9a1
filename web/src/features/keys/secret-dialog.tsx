import { useRef, useState } from 'react';
import { CopyButton } from '../../components/copy-button';
import { Dialog } from '../../components/dialog';
import type { CreatedKey } from '../../lib/types';
import { keySnippets } from './snippets';

export interface SecretDialogProps {
  created: CreatedKey;
  /** A model the key may use, for the snippets. */
  model: string;
  onClose: () => void;
}

/**
 * The new secret, shown this once: a read-only field with Copy, and ready snippets. The secret
 * lives only in this component's props (and the tab's memory for the playground); closing drops
 * it. Escape before copying asks once more, as the secret cannot be shown again.
 */
export function SecretDialog({ created, model, onClose }: SecretDialogProps) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState(false);
  const [warned, setWarned] = useState(false);
  const [tab, setTab] = useState<'curl' | 'javascript' | 'python'>('curl');
  const snippets = keySnippets(created.key, window.location.origin, model);
  const shown = snippets.find((s) => s.id === tab)!;

  const onEscape = () => {
    if (copied || warned) return true;
    setWarned(true);
    return false;
  };

  return (
    <Dialog title={`Save your key “${created.name}”`} onClose={onClose} onEscape={onEscape} wide>
      <p>
        This is the only time the secret is shown. The gateway keeps only a hash of it: if it is lost, regenerate the key.
      </p>
      <label>
        Secret key
        <input ref={field} className="mono" readOnly value={created.key} onFocus={(e) => e.target.select()} data-autofocus />
      </label>
      <div className="row">
        <CopyButton text={created.key} what="secret key" fallbackTarget={() => field.current} onCopied={() => setCopied(true)} />
      </div>
      {warned && !copied && (
        <p className="warning" role="alert">
          You have not copied the secret. Press Escape again to close anyway; it cannot be shown again.
        </p>
      )}
      <h3>Use it</h3>
      <div role="tablist" aria-label="Snippet language" className="tabs">
        {snippets.map((s) => (
          <button key={s.id} type="button" role="tab" aria-selected={s.id === tab} aria-controls="snippet-panel" onClick={() => setTab(s.id)}>
            {s.label}
          </button>
        ))}
      </div>
      <div id="snippet-panel" role="tabpanel" aria-label={shown.label}>
        <pre className="code" tabIndex={0}>
          <code>{shown.code}</code>
        </pre>
        <CopyButton text={shown.code} what={`${shown.label} snippet`} />
      </div>
      <div className="dialog-actions">
        <button type="button" className="primary" onClick={onClose}>
          I have stored it
        </button>
      </div>
    </Dialog>
  );
}
