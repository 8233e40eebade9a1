import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { api, ApiError, setCsrfToken, setUnauthorizedHandler } from '../lib/api';
import type { SessionAnswer, User } from '../lib/types';

type SessionState = { status: 'loading' } | { status: 'signed-out' } | { status: 'signed-in'; user: User };

interface SessionContextValue {
  state: SessionState;
  /** After sign-in or accepting an invitation: the answer carries the user and the CSRF token. */
  signedIn: (answer: SessionAnswer) => void;
  signOut: (everywhere?: boolean) => Promise<void>;
}

const SessionContext = createContext<SessionContextValue | undefined>(undefined);

/** Pages that work without a session; a 401 there is the page's own business. */
const PUBLIC_PATHS = ['/login', '/invite'];

export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>({ status: 'loading' });
  const navigate = useNavigate();
  const location = useLocation();
  const here = useRef(location);
  here.current = location;

  const toSignIn = useCallback(() => {
    setCsrfToken(undefined);
    setState({ status: 'signed-out' });
    const { pathname, search } = here.current;
    // One redirect, keeping the return address; never a loop from the sign-in page itself.
    if (PUBLIC_PATHS.some((p) => pathname.startsWith(p))) return;
    navigate(`/login?next=${encodeURIComponent(pathname + search)}`, { replace: true });
  }, [navigate]);

  useEffect(() => {
    setUnauthorizedHandler(toSignIn);
    return () => setUnauthorizedHandler(undefined);
  }, [toSignIn]);

  useEffect(() => {
    const controller = new AbortController();
    api<SessionAnswer>('GET', '/console/api/session', undefined, { signal: controller.signal, handle401: true }).then(
      (answer) => {
        setCsrfToken(answer.csrf_token);
        setState({ status: 'signed-in', user: answer.user });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        if (error instanceof ApiError && error.status === 401) toSignIn();
        else setState({ status: 'signed-out' });
      },
    );
    return () => controller.abort();
    // Only on start: later 401s arrive through the API client's handler.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const signedIn = useCallback((answer: SessionAnswer) => {
    setCsrfToken(answer.csrf_token);
    setState({ status: 'signed-in', user: answer.user });
  }, []);

  const signOut = useCallback(
    async (everywhere = false) => {
      try {
        await api(everywhere ? 'POST' : 'DELETE', everywhere ? '/console/api/session/revoke-all' : '/console/api/session', undefined, { handle401: true });
      } finally {
        setCsrfToken(undefined);
        setState({ status: 'signed-out' });
        navigate('/login', { replace: true });
      }
    },
    [navigate],
  );

  const value = useMemo(() => ({ state, signedIn, signOut }), [state, signedIn, signOut]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}

/** The signed-in user (pages below RequireSession only). */
export function useUser(): User {
  const { state } = useSession();
  if (state.status !== 'signed-in') throw new Error('useUser without a session');
  return state.user;
}

/** Operators read and change everything through /admin/api; key holders their own through /console/api. */
export const apiBase = (user: User): string => (user.role === 'operator' ? '/admin/api' : '/console/api');
