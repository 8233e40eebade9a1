import { lazy, Suspense } from 'react';
import { BrowserRouter, Navigate, Outlet, Route, Routes, useLocation } from 'react-router';
import { Loading } from '../components/states';
import { LoginPage } from '../features/auth/login-page';
import { InvitePage } from '../features/auth/invite-page';
import { KeysPage } from '../features/keys/keys-page';
import { Layout } from './layout';
import { NotifyProvider } from './notify';
import { SessionProvider, useSession } from './session';
import type { Role } from '../lib/types';

// Pages with heavy parts (charts) or that few people open load on first visit.
const UsagePage = lazy(() => import('../features/usage/usage-page').then((m) => ({ default: m.UsagePage })));
const RequestsPage = lazy(() => import('../features/requests/requests-page').then((m) => ({ default: m.RequestsPage })));
const ChannelsPage = lazy(() => import('../features/channels/channels-page').then((m) => ({ default: m.ChannelsPage })));
const ModelsPage = lazy(() => import('../features/models/models-page').then((m) => ({ default: m.ModelsPage })));
const TasksPage = lazy(() => import('../features/tasks/tasks-page').then((m) => ({ default: m.TasksPage })));
const PlaygroundPage = lazy(() => import('../features/playground/playground-page').then((m) => ({ default: m.PlaygroundPage })));
const UsersPage = lazy(() => import('../features/users/users-page').then((m) => ({ default: m.UsersPage })));

function RequireSession() {
  const { state } = useSession();
  const location = useLocation();
  if (state.status === 'loading') return <Loading what="Checking your session" />;
  if (state.status === 'signed-out') return <Navigate to={`/login?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  return <Outlet />;
}

function RequireRole({ role }: { role: Role }) {
  const { state } = useSession();
  if (state.status !== 'signed-in' || state.user.role !== role) return <Navigate to="/token" replace />;
  return <Outlet />;
}

export function App() {
  return (
    <BrowserRouter basename="/console">
      <NotifyProvider>
        <SessionProvider>
          <Suspense fallback={<Loading />}>
            <Routes>
              <Route path="/login" element={<LoginPage />} />
              <Route path="/invite" element={<InvitePage />} />
              <Route element={<RequireSession />}>
                <Route element={<Layout />}>
                  <Route index element={<Navigate to="/token" replace />} />
                  <Route path="/token" element={<KeysPage />} />
                  <Route path="/usage" element={<UsagePage />} />
                  <Route path="/requests" element={<RequestsPage />} />
                  <Route path="/tasks" element={<TasksPage />} />
                  <Route path="/playground" element={<PlaygroundPage />} />
                  <Route element={<RequireRole role="operator" />}>
                    <Route path="/channels" element={<ChannelsPage />} />
                    <Route path="/models" element={<ModelsPage />} />
                    <Route path="/users" element={<UsersPage />} />
                  </Route>
                  <Route path="*" element={<Navigate to="/token" replace />} />
                </Route>
              </Route>
            </Routes>
          </Suspense>
        </SessionProvider>
      </NotifyProvider>
    </BrowserRouter>
  );
}
