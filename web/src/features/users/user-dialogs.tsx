import { useRef, useState, type FormEvent } from 'react';
import { CopyButton } from '../../components/copy-button';
import { Dialog } from '../../components/dialog';
import { api, messageOf } from '../../lib/api';
import { formatTime } from '../../lib/format';
import type { ConsoleModel, Invitation, User } from '../../lib/types';
import { allowanceBody, allowanceFrom, AllowanceInputs, allowanceProblem, type AllowanceFields } from './user-form';

/** The link to send, with Copy; it works once, for 7 days. */
export function InvitationLink({ invitation }: { invitation: Invitation }) {
  const field = useRef<HTMLInputElement>(null);
  return (
    <div className="form">
      <p>
        Send this link to {invitation.user.name} ({invitation.user.email}). It works once, until {formatTime(invitation.invite_expires_at)}; opening it lets them set a password.
      </p>
      <label>
        Invitation link
        <input ref={field} className="mono" readOnly value={invitation.invite_url} onFocus={(e) => e.target.select()} data-autofocus />
      </label>
      <CopyButton text={invitation.invite_url} what="invitation link" fallbackTarget={() => field.current} />
    </div>
  );
}

export function InviteUserDialog({ models, onInvited, onClose }: { models: readonly ConsoleModel[]; onInvited: () => void; onClose: () => void }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [fields, setFields] = useState<AllowanceFields>({ role: 'user', budget: '', rpm: '', tpm: '', models: null, families: null });
  const [invitation, setInvitation] = useState<Invitation>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const problem = allowanceProblem(fields);
    if (problem) return setError(problem);
    setBusy(true);
    setError(undefined);
    try {
      const allowance = fields.role === 'user' ? allowanceBody(fields) : { role: 'operator' };
      setInvitation(await api<Invitation>('POST', '/admin/api/users', { email: email.trim(), name: name.trim(), ...allowance }));
      onInvited();
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };

  if (invitation) {
    return (
      <Dialog title="Invitation created" onClose={onClose}>
        <InvitationLink invitation={invitation} />
        <div className="dialog-actions">
          <button type="button" className="primary" onClick={onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }
  return (
    <Dialog title="Invite a person" onClose={onClose} wide>
      <form className="form" onSubmit={submit}>
        <div className="grid-2">
          <label>
            Email
            <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} data-autofocus />
          </label>
          <label>
            Name
            <input required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
          </label>
        </div>
        <AllowanceInputs fields={fields} onChange={setFields} models={models} />
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Inviting…' : 'Create invitation'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function EditUserDialog({ user, models, onSaved, onClose }: { user: User; models: readonly ConsoleModel[]; onSaved: () => void; onClose: () => void }) {
  const [name, setName] = useState(user.name);
  const [fields, setFields] = useState<AllowanceFields>(allowanceFrom(user));
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const problem = allowanceProblem(fields);
    if (problem) return setError(problem);
    setBusy(true);
    setError(undefined);
    try {
      const body = user.id === 'operator' ? { name: name.trim() } : { name: name.trim(), ...allowanceBody(fields) };
      await api('PATCH', `/admin/api/users/${encodeURIComponent(user.id)}`, body);
      onSaved();
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };

  return (
    <Dialog title={`Edit ${user.name}`} onClose={onClose} wide>
      <form className="form" onSubmit={submit}>
        <label>
          Name
          <input required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} data-autofocus />
        </label>
        {user.id !== 'operator' && <AllowanceInputs fields={fields} onChange={setFields} models={models} />}
        <p className="hint">Changing the allowance does not change keys they already have; edit or revoke those on the keys page.</p>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
