import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { api, ApiError } from '../../lib/api';
import { usePageTitle } from '../../lib/page-title';
import type { SessionAnswer } from '../../lib/types';
import { useSession } from '../../shell/session';

type Method = 'password' | 'token';

/** Where to go after signing in: a path inside the console only (never another site). */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/login') ? next : '/token';
}

function signInError(error: unknown, method: Method): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  if (error.status === 401) return method === 'token' ? 'That admin token is not valid.' : 'Wrong email or password.';
  if (error.status === 429) {
    const wait = error.retryAfter;
    return `Too many failed sign-ins. ${wait === undefined ? 'Wait a while' : `Try again in ${wait >= 120 ? `${Math.ceil(wait / 60)} minutes` : `${wait} seconds`}`} before the next try.`;
  }
  return error.message;
}

/** Sign-in: email and password (invited people), or the admin token (the built-in operator). */
export function LoginPage() {
  usePageTitle('Sign in');
  const { state, signedIn } = useSession();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [method, setMethod] = useState<Method>('password');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const next = safeNext(params.get('next'));
  const chosen = useRef(false);

  // A fresh install has nobody with a password yet: open on the admin token, the only way in (issue 35).
  useEffect(() => {
    const controller = new AbortController();
    api<{ password_sign_in: boolean }>('GET', '/console/api/sign-in-options', undefined, { signal: controller.signal, handle401: true }).then(
      (options) => {
        if (!options.password_sign_in && !chosen.current) setMethod('token');
      },
      () => undefined,
    );
    return () => controller.abort();
  }, []);

  if (state.status === 'signed-in') return <Navigate to={next} replace />;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const body = method === 'token' ? { admin_token: token } : { email, password };
      const answer = await api<SessionAnswer>('POST', '/console/api/session', body, { handle401: true });
      signedIn(answer);
      navigate(next, { replace: true });
    } catch (failure) {
      setError(signInError(failure, method));
    } finally {
      setBusy(false);
    }
  };

  const tab = (which: Method, label: string) => (
    <button
      type="button"
      role="tab"
      id={`tab-${which}`}
      aria-selected={method === which}
      aria-controls="sign-in-panel"
      tabIndex={method === which ? 0 : -1}
      onClick={() => {
        chosen.current = true;
        setMethod(which);
        setError(undefined);
      }}
      onKeyDown={(event) => {
        if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
          const other: Method = which === 'password' ? 'token' : 'password';
          chosen.current = true;
          setMethod(other);
          document.getElementById(`tab-${other}`)?.focus();
        }
      }}
    >
      {label}
    </button>
  );

  return (
    <main className="auth-page" id="main">
      <div className="auth-card">
        <h1>Sign in to the gateway console</h1>
        <div role="tablist" aria-label="How to sign in" className="tabs">
          {tab('password', 'Email & password')}
          {tab('token', 'Admin token')}
        </div>
        <form id="sign-in-panel" role="tabpanel" aria-labelledby={`tab-${method}`} onSubmit={submit} className="form">
          {method === 'password' ? (
            <>
              <label>
                Email
                <input type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
              </label>
              <label>
                Password
                <input type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
              </label>
            </>
          ) : (
            <label>
              Admin token
              <input type="password" autoComplete="off" required value={token} onChange={(e) => setToken(e.target.value)} />
              <span className="hint">The GATEWAY_ADMIN_TOKEN of this gateway; it signs you in as the built-in operator.</span>
            </label>
          )}
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
        <p className="muted small">Invited? Open the link from your invitation to set a password first. Forgot it? Ask an operator for a new link.</p>
      </div>
    </main>
  );
}
