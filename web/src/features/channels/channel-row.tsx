import { useState } from 'react';
import { useNotify } from '../../app/notify';
import { StatusBadge } from '../../components/states';
import { api, messageOf } from '../../lib/api';
import { formatCount, formatMs, formatPercent, formatTime } from '../../lib/format';
import type { Channel, ChannelTest } from '../../lib/types';

const host = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/**
 * One channel: enable/disable at once; weight and priority edited in place and saved by an
 * explicit Save (never on blur); a test whose result shows in the row.
 */
export function ChannelRow({ channel, onChanged, onEdit, onRemove }: { channel: Channel; onChanged: (channel: Channel) => void; onEdit: () => void; onRemove: () => void }) {
  const notify = useNotify();
  const [weight, setWeight] = useState(String(channel.weight));
  const [priority, setPriority] = useState(String(channel.priority));
  const [busy, setBusy] = useState(false);
  const [test, setTest] = useState<{ running: boolean; result?: ChannelTest; error?: string }>({ running: false });
  const dirty = weight !== String(channel.weight) || priority !== String(channel.priority);
  const path = `/admin/api/channels/${encodeURIComponent(channel.id)}`;

  const patch = async (body: Record<string, unknown>, done: string) => {
    setBusy(true);
    try {
      const updated = await api<Channel>('PATCH', path, body);
      onChanged(updated);
      setWeight(String(updated.weight));
      setPriority(String(updated.priority));
      notify(done);
    } catch (error) {
      notify(messageOf(error), 'error');
    } finally {
      setBusy(false);
    }
  };
  const runTest = async () => {
    setTest({ running: true });
    try {
      setTest({ running: false, result: await api<ChannelTest>('POST', `${path}/test`) });
    } catch (error) {
      setTest({ running: false, error: messageOf(error) });
    }
  };

  return (
    <tr>
      <th scope="row">
        {channel.id}
        <div className="muted small">
          {channel.vendor} · {host(channel.base_url)} · {channel.source === 'default' ? 'default' : channel.runtime_override ? 'file, changed at runtime' : channel.source}
          {channel.credentials.api_key && ` · key ${channel.credentials.api_key}`}
        </div>
      </th>
      <td>
        <StatusBadge status={channel.enabled ? 'enabled' : 'disabled'} />
      </td>
      <td>
        <StatusBadge status={channel.circuit} />
      </td>
      <td title={Object.entries(channel.model_map).map(([id, upstream]) => `${id} → ${upstream}`).join('\n')}>{channel.models.length}</td>
      <td>
        <input className="inline-input" type="number" min={1} max={1000} step={1} value={weight} onChange={(e) => setWeight(e.target.value)} aria-label={`Weight of ${channel.id}`} />
      </td>
      <td>
        <input className="inline-input" type="number" min={-1000} max={1000} step={1} value={priority} onChange={(e) => setPriority(e.target.value)} aria-label={`Priority of ${channel.id}`} />
      </td>
      <td className="num">{formatCount(channel.requests)}</td>
      <td className="num">{formatPercent(channel.error_rate)}</td>
      <td className="num">
        {formatMs(channel.latency_p50_ms)} / {formatMs(channel.latency_p99_ms)}
      </td>
      <td className="clip" title={channel.last_error?.message}>
        {channel.last_error ? `${formatTime(channel.last_error.at)} · ${channel.last_error.status ?? ''} ${channel.last_error.message}` : '—'}
      </td>
      <td>
        <div className="actions">
          <button type="button" disabled={!dirty || busy} onClick={() => void patch({ weight: Number(weight), priority: Number(priority) }, `${channel.id}: weight and priority saved.`)} aria-label={`Save weight and priority of ${channel.id}`}>
            Save
          </button>
          <button type="button" disabled={busy} onClick={() => void patch({ enabled: !channel.enabled }, `${channel.id} ${channel.enabled ? 'disabled' : 'enabled'}.`)} aria-label={`${channel.enabled ? 'Disable' : 'Enable'} ${channel.id}`}>
            {channel.enabled ? 'Disable' : 'Enable'}
          </button>
          <button type="button" disabled={test.running} onClick={() => void runTest()} aria-label={`Test ${channel.id}`}>
            {test.running ? 'Testing…' : 'Test'}
          </button>
          {channel.source !== 'default' && (
            <button type="button" onClick={onEdit} aria-label={`Edit ${channel.id}`}>
              Edit
            </button>
          )}
          {(channel.source === 'runtime' || channel.runtime_override) && (
            <button type="button" className="danger" onClick={onRemove} aria-label={`${channel.source === 'runtime' ? 'Delete' : 'Reset to file'} ${channel.id}`}>
              {channel.source === 'runtime' ? 'Delete' : 'Reset to file'}
            </button>
          )}
        </div>
        <div role="status" aria-live="polite" className="small">
          {test.result &&
            (test.result.ok ? (
              <span className="badge badge-succeeded">✓ OK {test.result.status} · {formatMs(test.result.latency_ms)} · {test.result.model}</span>
            ) : (
              <span className="badge badge-failed">✕ {test.result.status ?? ''} {test.result.error}</span>
            ))}
          {test.error && <span className="error">{test.error}</span>}
        </div>
      </td>
    </tr>
  );
}
