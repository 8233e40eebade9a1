import { api } from '../../lib/api';
import type { ListAnswer } from '../../lib/types';
import { useLoad } from '../../lib/use-load';

/** A key's MCP grant: server → its tools, or null for all of them. */
export type McpGrant = Record<string, string[] | null>;

/**
 * The key form's MCP section (issue 31, operators): a checkbox per published server and, for a
 * checked one, the tools it may call (comma-separated; empty: every tool). Nothing checked: no MCP.
 */
export function McpGrantPicker({ value, onChange }: { value: McpGrant; onChange: (grant: McpGrant) => void }) {
  const servers = useLoad((signal) => api<ListAnswer<{ name: string; health: { tools_discovered: string[] | null } }>>('GET', '/admin/api/mcp-servers', undefined, { signal }), []);
  const list = servers.data?.data ?? [];
  if (list.length === 0) return null;
  return (
    <fieldset>
      <legend>MCP servers (none checked: no MCP)</legend>
      {list.map((server) => {
        const granted = Object.hasOwn(value, server.name);
        const tools = value[server.name];
        return (
          <div key={server.name} className="row">
            <label>
              <input
                type="checkbox"
                checked={granted}
                onChange={(e) => {
                  const next = { ...value };
                  if (e.target.checked) next[server.name] = null;
                  else delete next[server.name];
                  onChange(next);
                }}
              />
              {server.name}
            </label>
            {granted && (
              <input
                aria-label={`Tools of ${server.name}`}
                placeholder={`all tools${server.health.tools_discovered ? ` (${server.health.tools_discovered.join(', ')})` : ''}`}
                value={tools ? tools.join(', ') : ''}
                onChange={(e) => {
                  const names = e.target.value.split(',').map((t) => t.trim()).filter(Boolean);
                  onChange({ ...value, [server.name]: names.length > 0 ? names : null });
                }}
              />
            )}
          </div>
        );
      })}
    </fieldset>
  );
}
