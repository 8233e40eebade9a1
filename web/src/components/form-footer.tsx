import type { ReactNode } from 'react';

/** A dialog form's end: its error (announced), Cancel, any other actions, and the submit button. */
export function FormFooter({ error, busy, label, busyLabel, onCancel, children }: { error: string | undefined; busy: boolean; label: string; busyLabel: string; onCancel: () => void; children?: ReactNode }) {
  return (
    <>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="dialog-actions">
        {children}
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? busyLabel : label}
        </button>
      </div>
    </>
  );
}
