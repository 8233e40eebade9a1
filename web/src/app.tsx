import { lazy, Suspense } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { LoginPage } from './features/auth/login-page';
import { InvitePage } from './features/auth/invite-page';
import { KeysPage } from './features/keys/keys-page';
import { Layout } from './shell/layout';
import { SignOutEverywhereDialog } from './components/sign-out-everywhere';
import { Loading } from './shell/loading';
import { NotifyProvider } from './shell/notify';
import { RequireRole, RequireSession } from './shell/route-guards';
import { SessionProvider } from './shell/session';

// Pages with heavy parts (charts) or that few people open load on first visit.
const UsagePage = lazy(() => import('./features/usage/usage-page').then((m) => ({ default: m.UsagePage })));
const RequestsPage = lazy(() => import('./features/requests/requests-page').then((m) => ({ default: m.RequestsPage })));
const McpServersPage = lazy(() => import('./features/mcp/mcp-servers-page').then((m) => ({ default: m.McpServersPage })));
const ChannelsPage = lazy(() => import('./features/channels/channels-page').then((m) => ({ default: m.ChannelsPage })));
const ModelsPage = lazy(() => import('./features/models/models-page').then((m) => ({ default: m.ModelsPage })));
const TasksPage = lazy(() => import('./features/tasks/tasks-page').then((m) => ({ default: m.TasksPage })));
const PlaygroundPage = lazy(() => import('./features/playground/playground-page').then((m) => ({ default: m.PlaygroundPage })));
const CachePage = lazy(() => import('./features/cache/cache-page').then((m) => ({ default: m.CachePage })));
const UsersPage = lazy(() => import('./features/users/users-page').then((m) => ({ default: m.UsersPage })));

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
                <Route element={<Layout ConfirmSignOutEverywhere={SignOutEverywhereDialog} />}>
                  <Route index element={<Navigate to="/token" replace />} />
                  <Route path="/token" element={<KeysPage />} />
                  <Route path="/usage" element={<UsagePage />} />
                  <Route path="/requests" element={<RequestsPage />} />
                  <Route path="/tasks" element={<TasksPage />} />
                  <Route path="/playground" element={<PlaygroundPage />} />
                  <Route element={<RequireRole role="operator" />}>
                    <Route path="/channels" element={<ChannelsPage />} />
                    <Route path="/mcp-servers" element={<McpServersPage />} />
                    <Route path="/models" element={<ModelsPage />} />
                    <Route path="/users" element={<UsersPage />} />
                    <Route path="/cache" element={<CachePage />} />
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
