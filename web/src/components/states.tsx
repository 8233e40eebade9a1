import type { ReactNode } from 'react';
import { ApiError, messageOf } from '../lib/api';

export function ErrorNote({ error, retry }: { error: unknown; retry?: () => void }) {
  const forbidden = error instanceof ApiError && error.status === 403;
  return (
    <div className="note note-error" role="alert">
      <strong>{forbidden ? 'Not allowed' : 'Something went wrong'}</strong>
      <p>{messageOf(error)}</p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export const Empty = ({ children }: { children: ReactNode }) => <div className="note note-empty">{children}</div>;

/** The endpoint answered 404: this gateway version does not have the feature yet. */
export function NotAvailable({ what, endpoint }: { what: string; endpoint: string }) {
  return (
    <div className="note note-unavailable" role="status">
      <strong>{what} is not available on this server</strong>
      <p>
        The gateway answered 404 for <code>{endpoint}</code>: this version does not offer it yet. Update the gateway to use this page.
      </p>
    </div>
  );
}

/** Statuses whose words are not their id with spaces. */
const WORDS: Record<string, string> = { rate_limited: 'rate-limited now' };

export function StatusBadge({ status, title }: { status: string; title?: string | undefined }) {
  const icon: Record<string, string> = { rate_limited: '⧗', budget_spent: '⊘', active: '●', enabled: '●', closed: '●', disabled: '○', revoked: '✕', expired: '◌', open: '✕', half_open: '◐', invited: '✉', succeeded: '✓', completed: '✓', failed: '✕', queued: '…', in_progress: '◐' };
  return (
    <span className={`badge badge-${status}`} title={title}>
      <span aria-hidden="true">{icon[status] ?? '•'}</span> {WORDS[status] ?? status.replace('_', ' ')}
    </span>
  );
}
