import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, ApiError } from '../../lib/api';
import { usePageTitle } from '../../lib/page-title';
import type { SessionAnswer } from '../../lib/types';
import { useSession } from '../../shell/session';

const MIN_PASSWORD = 10;

/** The invitation token rides in the URL fragment, which browsers never send to a server. */
const tokenFromHash = (): string => new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '';

/** /console/invite#token=…: the invited person sets a password and is signed in. */
export function InvitePage() {
  usePageTitle('Accept invitation');
  const { signedIn } = useSession();
  const navigate = useNavigate();
  const [token] = useState(tokenFromHash);
  // Read once, then dropped from the address bar (and so from history and screenshots).
  useEffect(() => {
    if (window.location.hash) window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
  }, []);
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    if (password.length < MIN_PASSWORD) return setError(`The password needs at least ${MIN_PASSWORD} characters.`);
    if (password !== again) return setError('The two passwords differ.');
    setBusy(true);
    try {
      const answer = await api<SessionAnswer>('POST', '/console/api/invite/accept', { token, password }, { handle401: true });
      signedIn(answer);
      navigate('/token', { replace: true });
    } catch (failure) {
      setError(failure instanceof ApiError && failure.code === 'invalid_invitation' ? 'This invitation link is unknown, used or expired. Ask an operator for a new one.' : failure instanceof Error ? failure.message : String(failure));
      setBusy(false);
    }
  };

  return (
    <main className="auth-page" id="main">
      <div className="auth-card">
        <h1>Set your password</h1>
        {!token ? (
          <div className="note note-error" role="alert">
            <strong>This link has no invitation token.</strong>
            <p>Open the full link from your invitation (it ends in #token=…), or ask an operator for a new one.</p>
            <Link to="/login">Go to sign-in</Link>
          </div>
        ) : (
          <form onSubmit={submit} className="form">
            <p>You have been invited to the gateway console. Choose a password to finish; the link works once.</p>
            <label>
              New password
              <input type="password" autoComplete="new-password" required minLength={MIN_PASSWORD} value={password} onChange={(e) => setPassword(e.target.value)} aria-describedby="password-rule" />
              <span className="hint" id="password-rule">
                At least {MIN_PASSWORD} characters ({password.length} so far).
              </span>
            </label>
            <label>
              Repeat the password
              <input type="password" autoComplete="new-password" required value={again} onChange={(e) => setAgain(e.target.value)} />
            </label>
            {error && (
              <p className="error" role="alert">
                {error}
              </p>
            )}
            <button type="submit" className="primary" disabled={busy}>
              {busy ? 'Saving…' : 'Set password and sign in'}
            </button>
          </form>
        )}
      </div>
    </main>
  );
}
