import { Navigate, Outlet, useLocation } from 'react-router';
import { Loading } from './loading';
import { useSession } from './session';
import type { Role } from '../lib/types';

/** Pages below it need a session: without one the browser goes to sign-in, keeping its address to come back to. */
export function RequireSession() {
  const { state } = useSession();
  const location = useLocation();
  if (state.status === 'loading') return <Loading what="Checking your session" />;
  if (state.status === 'signed-out') return <Navigate to={`/login?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  return <Outlet />;
}

/** Pages below it are for one role; anyone else lands on their keys. */
export function RequireRole({ role }: { role: Role }) {
  const { state } = useSession();
  if (state.status !== 'signed-in' || state.user.role !== role) return <Navigate to="/token" replace />;
  return <Outlet />;
}
