import { Suspense, useEffect, useState, type ComponentType } from 'react';
import { Loading } from './loading';
import { NavLink, Outlet, useLocation } from 'react-router';
import { useSession, useUser } from './session';
import type { Role } from '../lib/types';

interface NavItem {
  to: string;
  label: string;
  roles: readonly Role[];
}

const EVERYONE: readonly Role[] = ['operator', 'user'];
const OPERATORS: readonly Role[] = ['operator'];

export const NAV: readonly NavItem[] = [
  { to: '/token', label: 'API keys', roles: EVERYONE },
  { to: '/usage', label: 'Usage', roles: EVERYONE },
  { to: '/requests', label: 'Request log', roles: EVERYONE },
  { to: '/channels', label: 'Channels', roles: OPERATORS },
  { to: '/mcp-servers', label: 'MCP servers', roles: OPERATORS },
  { to: '/models', label: 'Models & prices', roles: OPERATORS },
  { to: '/cache', label: 'Response cache', roles: OPERATORS },
  { to: '/tasks', label: 'Video tasks', roles: EVERYONE },
  { to: '/playground', label: 'Playground', roles: EVERYONE },
  { to: '/users', label: 'Users', roles: OPERATORS },
];

/** The signed-in frame: a left nav (a menu button on narrow screens), the page, and who is signed in. */
export function Layout({ ConfirmSignOutEverywhere }: { ConfirmSignOutEverywhere: ComponentType<{ onClose: () => void }> }) {
  const user = useUser();
  const { signOut } = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  const [confirmEverywhere, setConfirmEverywhere] = useState(false);
  const location = useLocation();
  // A chosen page closes the narrow-screen menu.
  useEffect(() => setMenuOpen(false), [location.pathname]);

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <button type="button" className="menu-button" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen((open) => !open)}>
          <span aria-hidden="true">☰</span> Menu
        </button>
        <span className="brand">Gateway console</span>
        <span className="who">
          <span className="who-name">{user.email ?? user.name}</span> <span className="badge">{user.role === 'operator' ? 'operator' : 'key holder'}</span>
        </span>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <nav id="nav" className={`sidenav${menuOpen ? ' open' : ''}`} aria-label="Console">
        <ul>
          {NAV.filter((item) => item.roles.includes(user.role)).map((item) => (
            <li key={item.to}>
              {/* A click closes the narrow-screen menu, the current page's link included. */}
              <NavLink to={item.to} onClick={() => setMenuOpen(false)}>
                {item.label}
              </NavLink>
            </li>
          ))}
        </ul>
        {/* The API reference first: "Sign out everywhere" ends every session, so it sits last and asks first (issue 35). */}
        <div className="sidenav-foot">
          <a href="/docs">API reference</a>
          <button type="button" className="link-button" onClick={() => setConfirmEverywhere(true)}>
            Sign out everywhere
          </button>
        </div>
      </nav>
      {/* The dialog comes from app.tsx: the shell stands below the components (docs/decisions.md, console layout). */}
      {confirmEverywhere && <ConfirmSignOutEverywhere onClose={() => setConfirmEverywhere(false)} />}
      <main id="main" className="content" tabIndex={-1}>
        <Suspense fallback={<Loading />}>
          <Outlet />
        </Suspense>
      </main>
    </div>
  );
}
