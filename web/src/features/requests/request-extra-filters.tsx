import type { Channel, User } from '../../lib/types';

/** The request log's filters beyond the usage ones, as typed (applied with the filter bar's Apply). */
export interface ExtraFilters {
  /** '' every request, 'mcp' the MCP tool calls only. */
  family: string;
  status: string;
  request_id: string;
  error_code: string;
  channel: string;
  user: string;
}

interface RequestExtraFiltersProps {
  value: ExtraFilters;
  onChange: (name: keyof ExtraFilters) => (event: { target: { value: string } }) => void;
  isOperator: boolean;
  channels: readonly Channel[];
  users: readonly User[];
}

/** Kind (all, or MCP tool calls), status, error code and request id; an operator also picks a channel and a user. */
export function RequestExtraFilters({ value, onChange, isOperator, channels, users }: RequestExtraFiltersProps) {
  return (
    <>
      <label>
        Kind
        <select value={value.family} onChange={onChange('family')}>
          <option value="">All requests</option>
          <option value="mcp">MCP tool calls</option>
        </select>
      </label>
      <label>
        Status
        <input value={value.status} onChange={onChange('status')} placeholder="429, 4xx, error or success" />
      </label>
      <label>
        Error code
        <input value={value.error_code} onChange={onChange('error_code')} placeholder="rate_limit_exceeded" />
      </label>
      <label>
        Request id
        <input value={value.request_id} onChange={onChange('request_id')} placeholder="x-request-id" />
      </label>
      {isOperator && (
        <label>
          Channel
          <select value={value.channel} onChange={onChange('channel')}>
            <option value="">All channels</option>
            {channels.map((c) => (
              <option key={c.id} value={c.id}>
                {c.id}
              </option>
            ))}
          </select>
        </label>
      )}
      {isOperator && (
        <label>
          User
          <select value={value.user} onChange={onChange('user')}>
            <option value="">All users</option>
            {users.map((u) => (
              <option key={u.id} value={u.id}>
                {u.email ?? u.name}
              </option>
            ))}
          </select>
        </label>
      )}
    </>
  );
}
