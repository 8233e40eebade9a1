import { api } from '../../lib/api';
import type { ListAnswer } from '../../lib/types';
import { useLoad } from '../../lib/use-load';

/** A key's MCP grant: server → its tools, or null for all of them. */
export type McpGrant = Record<string, string[] | null>;

interface PublishedServer {
  name: string;
  health: { tools_discovered: string[] | null };
}

/**
 * The key form's MCP section (issue 31, operators): a checkbox per published server and, for a
 * checked one, "All tools" or a checkbox per tool the server was seen to offer (the MCP servers
 * page's Test lists them; before that, names are typed). Nothing checked: no MCP.
 */
export function McpGrantPicker({ value, onChange }: { value: McpGrant; onChange: (grant: McpGrant) => void }) {
  const servers = useLoad((signal) => api<ListAnswer<PublishedServer>>('GET', '/admin/api/mcp-servers', undefined, { signal }), []);
  const list = servers.data?.data ?? [];
  if (list.length === 0) return null;
  return (
    <fieldset>
      <legend>MCP servers (none checked: no MCP)</legend>
      {list.map((server) => {
        const granted = Object.hasOwn(value, server.name);
        return (
          <div key={server.name}>
            <label className="row">
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
            {granted && <ToolChoice server={server} tools={value[server.name] ?? null} onChange={(tools) => onChange({ ...value, [server.name]: tools })} />}
          </div>
        );
      })}
    </fieldset>
  );
}

/** The tools of one granted server: all of them (null), or those checked. */
function ToolChoice({ server, tools, onChange }: { server: PublishedServer; tools: string[] | null; onChange: (tools: string[] | null) => void }) {
  const discovered = server.health.tools_discovered;
  if (!discovered || discovered.length === 0) {
    return (
      <input
        aria-label={`Tools of ${server.name}`}
        placeholder="all tools (or names, comma-separated)"
        value={tools ? tools.join(', ') : ''}
        onChange={(e) => {
          const names = e.target.value.split(',').map((t) => t.trim()).filter(Boolean);
          onChange(names.length > 0 ? names : null);
        }}
      />
    );
  }
  // A granted tool the server no longer lists stays shown, so saving does not drop it unseen.
  const names = [...new Set([...discovered, ...(tools ?? [])])].sort();
  return (
    <div role="group" aria-label={`Tools of ${server.name}`} className="row tool-choice">
      <label>
        <input type="checkbox" checked={tools === null} onChange={(e) => onChange(e.target.checked ? null : [])} />
        All tools
      </label>
      {tools !== null &&
        names.map((name) => (
          <label key={name}>
            <input
              type="checkbox"
              checked={tools.includes(name)}
              onChange={(e) => onChange(e.target.checked ? [...tools, name].sort() : tools.filter((t) => t !== name))}
            />
            {name}
          </label>
        ))}
    </div>
  );
}
