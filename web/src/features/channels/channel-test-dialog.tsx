import { useState, type FormEvent } from 'react';
import { Dialog } from '../../components/dialog';
import { api, messageOf } from '../../lib/api';
import { formatMs, formatTime } from '../../lib/format';
import type { Channel, ChannelTest } from '../../lib/types';

/** A test's outcome in words: the gateway's status, the vendor's own status and text (operators only). */
export function testSummary(test: ChannelTest): string {
  if (test.ok) return `OK ${test.status ?? ''} · ${formatMs(test.latency_ms)} · ${test.model ?? ''}`;
  const status = test.vendor_status !== null && test.vendor_status !== undefined ? `vendor ${test.vendor_status}` : `${test.status ?? ''}`;
  return `${status} · ${test.vendor_message ?? test.error ?? ''}`;
}

/**
 * Test one channel (issue 35): pick one of its models, send one short message through it alone,
 * and read what came back: the model's answer, or the gateway's status with the vendor's own
 * status and text (redacted of the channel's credentials). The server keeps the result, so the
 * row shows it after a reload too.
 */
export function ChannelTestDialog({ channel, onTested, onClose }: { channel: Channel; onTested: (result: ChannelTest) => void; onClose: () => void }) {
  const [model, setModel] = useState(channel.last_test?.model && channel.models.includes(channel.last_test.model) ? channel.last_test.model : (channel.models[0] ?? ''));
  const [result, setResult] = useState<ChannelTest | null>(channel.last_test);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const run = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const answer = await api<ChannelTest>('POST', `/admin/api/channels/${encodeURIComponent(channel.id)}/test`, { model });
      setResult(answer);
      onTested(answer);
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog title={`Test ${channel.id}`} onClose={onClose}>
      <form className="form" onSubmit={run}>
        <label>
          Model
          <select value={model} onChange={(e) => setModel(e.target.value)} data-autofocus>
            {channel.models.map((id) => (
              <option key={id} value={id}>
                {id}
                {channel.model_map[id] && channel.model_map[id] !== id ? ` → ${channel.model_map[id]}` : ''}
              </option>
            ))}
          </select>
          <span className="hint">One short chat message, sent through this channel only (enabled or not), with no retries and billed to no key.</span>
        </label>
        <div role="status" aria-live="polite" aria-label="Test result">
          {busy && <p className="muted">Testing…</p>}
          {!busy && result && (
            <dl className="kv">
              <dt>Result</dt>
              <dd>
                <span className={`badge ${result.ok ? 'badge-succeeded' : 'badge-failed'}`}>{result.ok ? '✓ OK' : '✕ Failed'}</span> {result.model} · {result.at ? formatTime(result.at) : ''} ·{' '}
                {formatMs(result.latency_ms)}
              </dd>
              <dt>Gateway status</dt>
              <dd>{result.status ?? '—'}</dd>
              <dt>Vendor status</dt>
              <dd>{result.vendor_status ?? (result.ok ? 200 : '—')}</dd>
              {result.ok ? (
                <>
                  <dt>Answer</dt>
                  <dd>{result.reply ?? '—'}</dd>
                </>
              ) : (
                <>
                  <dt>Vendor's text</dt>
                  <dd>{result.vendor_message ?? '—'}</dd>
                  <dt>Gateway's error</dt>
                  <dd>{result.error ?? '—'}</dd>
                </>
              )}
            </dl>
          )}
          {error && <p className="error">{error}</p>}
        </div>
        <div className="row">
          <button type="submit" className="primary" disabled={busy || !model}>
            {busy ? 'Testing…' : 'Run test'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
