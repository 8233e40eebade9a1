import { useState } from 'react';
import { useNotify } from '../../shell/notify';
import { ActionsCell, DataCell, DataRow, RowHeader } from '../../components/data-table';
import { StatusBadge } from '../../components/states';
import { api, messageOf } from '../../lib/api';
import { formatCount, formatMs, formatPercent, formatTime } from '../../lib/format';
import type { Channel, ChannelTest } from '../../lib/types';
import { testSummary } from './channel-test-dialog';

const host = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/** A channel's test run from this page ("Test all"): running, its answer, or why it could not run. */
export interface TestState {
  running: boolean;
  result?: ChannelTest;
  error?: string;
}

export interface ChannelRowProps {
  channel: Channel;
  test: TestState | undefined;
  onTest: () => void;
  onChanged: (channel: Channel) => void;
  /** Disabling asks first (the page's dialog); enabling applies at once. */
  onDisable: () => void;
  onEdit: () => void;
  onRemove: () => void;
}

/**
 * One channel: weight and priority edited in place and saved by an explicit Save (never on
 * blur); enable at once, disable after a confirmation; the last test's result (kept on the server)
 * and the reason the gateway disabled it, if it did, on one line each with the whole text in a tooltip.
 */
export function ChannelRow({ channel, test, onTest, onChanged, onDisable, onEdit, onRemove }: ChannelRowProps) {
  const notify = useNotify();
  const [weight, setWeight] = useState(String(channel.weight));
  const [priority, setPriority] = useState(String(channel.priority));
  const [busy, setBusy] = useState(false);
  const dirty = weight !== String(channel.weight) || priority !== String(channel.priority);
  const path = `/admin/api/channels/${encodeURIComponent(channel.id)}`;
  // This page's run wins over the kept one until the list is read again.
  const lastTest = test?.result ?? channel.last_test;
  const stopped = channel.auto_disabled;

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

  return (
    <DataRow>
      <RowHeader>
        {channel.id}
        <div className="muted small">
          {channel.vendor} · {host(channel.base_url)} · {channel.source === 'default' ? 'default' : channel.runtime_override ? 'file, changed at runtime' : channel.source}
          {channel.row_fields?.map((field) => ` · ${field.label} ${field.value}`).join('')}
        </div>
      </RowHeader>
      <DataCell label="State">
        <StatusBadge status={channel.enabled ? 'enabled' : 'disabled'} />
        {stopped && (
          <div className="small error clamped" title={`${stopped.vendor_message ?? stopped.message}`}>
            Auto-disabled {formatTime(stopped.at)} after {stopped.failures} authentication failures in a row ({stopped.status ?? '—'}): {stopped.vendor_message ?? stopped.message}
          </div>
        )}
      </DataCell>
      <DataCell label="Circuit">
        {/* A disabled channel is sent nothing: its circuit's state means nothing until it is enabled (issue 35). */}
        {channel.enabled ? <StatusBadge status={channel.circuit} /> : <span className="muted">—</span>}
      </DataCell>
      <DataCell label="Models" title={Object.entries(channel.model_map).map(([id, upstream]) => `${id} → ${upstream}`).join('\n')}>
        {channel.models.length}
      </DataCell>
      <DataCell label="Weight">
        <input className="inline-input" type="number" min={1} max={1000} step={1} value={weight} onChange={(e) => setWeight(e.target.value)} aria-label={`Weight of ${channel.id}`} />
      </DataCell>
      <DataCell label="Priority">
        <input className="inline-input" type="number" min={-1000} max={1000} step={1} value={priority} onChange={(e) => setPriority(e.target.value)} aria-label={`Priority of ${channel.id}`} />
      </DataCell>
      <DataCell label="Requests (5 min)" className="num">
        {formatCount(channel.requests)}
      </DataCell>
      <DataCell label="Error rate" className="num">
        {formatPercent(channel.error_rate)}
      </DataCell>
      <DataCell label="Latency p50 / p99" className="num">
        {formatMs(channel.latency_p50_ms)} / {formatMs(channel.latency_p99_ms)}
      </DataCell>
      <DataCell label="Last error">
        {channel.last_error ? (
          // Wrapped by word and cut after three lines, the whole text in its tooltip: a long vendor message never squeezes the column to a letter a line.
          <span className="clamped" title={`${channel.last_error.status ?? ''} ${channel.last_error.vendor_message ?? channel.last_error.message}`.trim()}>
            {formatTime(channel.last_error.at)} · {channel.last_error.status ?? ''} {channel.last_error.vendor_message ?? channel.last_error.message}
          </span>
        ) : (
          '—'
        )}
      </DataCell>
      <ActionsCell
        status={
          <div role="status" aria-live="polite" aria-label={`Test result of ${channel.id}`} className="small">
            {lastTest && (
              <span className={`clamped badge ${lastTest.ok ? 'badge-succeeded' : 'badge-failed'}`} title={`${lastTest.at ? `${formatTime(lastTest.at)} · ` : ''}${testSummary(lastTest)}`}>
                {lastTest.ok ? '✓' : '✕'} {testSummary(lastTest)}
              </span>
            )}
            {test?.error && (
              <span className="error">
                <span aria-hidden="true">✕</span> {test.error}
              </span>
            )}
          </div>
        }
      >
        <button type="button" disabled={!dirty || busy} onClick={() => void patch({ weight: Number(weight), priority: Number(priority) }, `${channel.id}: weight and priority saved.`)} aria-label={`Save weight and priority of ${channel.id}`}>
          Save
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={() => (channel.enabled ? onDisable() : void patch({ enabled: true }, `${channel.id} enabled.`))}
          aria-label={`${channel.enabled ? 'Disable' : 'Enable'} ${channel.id}`}
        >
          {channel.enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" disabled={test?.running} onClick={onTest} aria-label={`Test ${channel.id}`} title="Pick a model and send one short message through this channel">
          {test?.running ? 'Testing…' : 'Test'}
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
      </ActionsCell>
    </DataRow>
  );
}
