import { useState, type FormEvent } from 'react';
import { useNotify } from '../../shell/notify';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { Empty, ErrorNote, NotAvailable } from '../../components/states';
import { Loading } from '../../shell/loading';
import { api, isNotAvailable, messageOf } from '../../lib/api';
import { DataTable } from '../../components/data-table';
import { usePageTitle } from '../../lib/page-title';
import type { ListAnswer } from '../../lib/types';
import { useLoad } from '../../lib/use-load';

/** An upstream MCP server as GET /admin/api/mcp-servers shows it (never its credentials). */
interface McpServerView {
  name: string;
  url: string;
  origin: 'file' | 'runtime';
  enabled: boolean;
  auth: { type: string };
  tools: string[] | null;
  health: { status: string; last_error: string | null; tools_discovered: string[] | null };
}

interface McpTest {
  ok: boolean;
  tools: string[];
  error: string | null;
}

/**
 * Operators: upstream MCP servers (issue 31): status, tools discovered, last error, a test, and
 * servers added and removed at run time. Keys get servers through the admin API's `mcp` field.
 */
export function McpServersPage() {
  usePageTitle('MCP servers');
  const notify = useNotify();
  const servers = useLoad((signal) => api<ListAnswer<McpServerView>>('GET', '/admin/api/mcp-servers', undefined, { signal }), []);
  const [removing, setRemoving] = useState<McpServerView>();
  const [tests, setTests] = useState<Record<string, string>>({});
  const [form, setForm] = useState({ name: '', url: '', token: '' });
  const [formError, setFormError] = useState<string>();

  const test = async (name: string) => {
    setTests((all) => ({ ...all, [name]: 'Testing…' }));
    try {
      const result = await api<McpTest>('POST', `/admin/api/mcp-servers/${encodeURIComponent(name)}/test`);
      setTests((all) => ({ ...all, [name]: result.ok ? `OK: ${result.tools.join(', ') || 'no tools'}` : `Failed: ${result.error}` }));
    } catch (error) {
      setTests((all) => ({ ...all, [name]: messageOf(error) }));
    }
    servers.reload();
  };
  const add = async (event: FormEvent) => {
    event.preventDefault();
    setFormError(undefined);
    try {
      await api('POST', '/admin/api/mcp-servers', { name: form.name, url: form.url, auth: form.token ? { type: 'bearer', token: form.token } : { type: 'none' } });
      notify(`MCP server ${form.name} added.`);
      setForm({ name: '', url: '', token: '' });
      servers.reload();
    } catch (error) {
      setFormError(messageOf(error));
    }
  };

  if (isNotAvailable(servers.error)) return <NotAvailable what="MCP servers" endpoint="GET /admin/api/mcp-servers" />;
  const rows = servers.data?.data ?? [];
  return (
    <section aria-labelledby="mcp-title">
      <div className="page-head">
        <h1 id="mcp-title">MCP servers</h1>
      </div>
      <p className="muted">
        Upstream MCP servers published on <code>/mcp</code> (tools named <code>server__tool</code>) and <code>/mcp/&lt;server&gt;</code>. Credentials are encrypted
        at rest and never shown. A key uses a server only when its <code>mcp</code> field grants it.
      </p>
      {servers.error !== undefined && <ErrorNote error={servers.error} retry={servers.reload} />}
      {servers.loading && !servers.data && <Loading what="Loading MCP servers" />}
      {servers.data && rows.length === 0 && <Empty>No MCP servers are published.</Empty>}
      {rows.length > 0 && (
        <DataTable caption={`MCP servers (${rows.length})`} columns={['Server', 'URL', 'Auth', 'Status', 'Tools discovered', 'Last error', { label: 'Actions', hidden: true }]}>
          {rows.map((server) => (
            <tr key={server.name}>
              <td>
                {server.name} {!server.enabled && <span className="muted">(disabled)</span>}
              </td>
              <td>
                <code>{server.url}</code>
              </td>
              <td>{server.auth.type}</td>
              <td>{server.health.status}</td>
              <td>{tests[server.name] ?? (server.health.tools_discovered ?? []).join(', ')}</td>
              <td>{server.health.last_error ?? '—'}</td>
              <td>
                <div className="row">
                  <button type="button" onClick={() => void test(server.name)}>
                    Test
                  </button>
                  {server.origin === 'runtime' && (
                    <button type="button" className="danger" onClick={() => setRemoving(server)}>
                      Delete
                    </button>
                  )}
                </div>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <form onSubmit={(event) => void add(event)} aria-labelledby="mcp-add-title">
        <h2 id="mcp-add-title">Add an MCP server</h2>
        <label>
          Name (letters, digits, -)
          <input value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} required pattern="[A-Za-z0-9][A-Za-z0-9\-]{0,62}" />
        </label>
        <label>
          Streamable HTTP URL
          <input value={form.url} onChange={(e) => setForm({ ...form, url: e.target.value })} required type="url" />
        </label>
        <label>
          Bearer token (optional)
          <input value={form.token} onChange={(e) => setForm({ ...form, token: e.target.value })} type="password" autoComplete="off" />
        </label>
        {formError && <p role="alert">{formError}</p>}
        <button type="submit" className="primary">
          Add server
        </button>
      </form>
      {removing && (
        <ConfirmDialog
          title={`Delete MCP server ${removing.name}?`}
          confirmLabel="Delete server"
          danger
          onClose={() => setRemoving(undefined)}
          onConfirm={async () => {
            await api('DELETE', `/admin/api/mcp-servers/${encodeURIComponent(removing.name)}`);
            setRemoving(undefined);
            notify(`MCP server ${removing.name} deleted.`);
            servers.reload();
          }}
        >
          <p>Keys that name it lose its tools at once, on every instance. Its credentials are deleted.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
