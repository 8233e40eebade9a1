import { useState, type FormEvent } from 'react';
import { Dialog } from '../../components/dialog';
import { FormFooter } from '../../components/form-footer';
import { ErrorNote } from '../../components/states';
import { api, messageOf } from '../../lib/api';
import type { Channel, ListAnswer } from '../../lib/types';
import { useLoad } from '../../lib/use-load';
import { modelsText, num, parseHeaders, parseModels } from './channel-text';
import { CredentialInputs, initialCredentialValues, type VendorInfo } from './vendor-fields';

/**
 * Add a channel (a vendor account), or edit one (issue 21): the same fields as a channel of the
 * configuration file. Credentials are write-only: an edit shows their last four characters and
 * keeps them unless a new value is typed. Saved channels serve traffic at once, on every instance.
 * The vendors and the credential fields each takes come from GET /admin/api/vendors.
 */
export function ChannelDialog({ channel, onSaved, onClose }: { channel?: Channel; onSaved: (channel: Channel) => void; onClose: () => void }) {
  const editing = channel !== undefined;
  const [name, setName] = useState('');
  const vendors = useLoad((signal) => api<ListAnswer<VendorInfo>>('GET', '/admin/api/vendors', undefined, { signal }), []);
  const [picked, setVendor] = useState<string | undefined>(channel?.vendor);
  const vendor = picked ?? vendors.data?.data[0]?.vendor ?? '';
  const chosen = vendors.data?.data.find((v) => v.vendor === vendor);
  const [baseUrl, setBaseUrl] = useState(channel && !channel.simulator ? channel.base_url : '');
  const [credentials, setCredentials] = useState<Record<string, string>>(() => initialCredentialValues(channel));
  const [models, setModels] = useState(channel ? modelsText(channel.model_map) : '');
  const [priority, setPriority] = useState('0');
  const [weight, setWeight] = useState('1');
  const [maxRetries, setMaxRetries] = useState(channel ? String(channel.max_retries) : '');
  const [firstByte, setFirstByte] = useState(channel ? String(channel.timeouts.first_byte_ms) : '');
  const [headers, setHeaders] = useState('');
  const shownAuthLimit = channel?.auto_disable_after_auth_failures === null || channel === undefined ? '' : String(channel.auto_disable_after_auth_failures);
  const [authLimit, setAuthLimit] = useState(shownAuthLimit);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const body = (): Record<string, unknown> | string => {
    const parsed = parseModels(models);
    if (parsed.problem) return parsed.problem;
    const fields: Record<string, unknown> = { vendor, models: parsed.models };
    if (baseUrl.trim()) fields.base_url = baseUrl.trim();
    else if (editing && !channel.simulator) fields.base_url = null;
    for (const field of chosen?.credentials ?? []) {
      const value = field.secret ? credentials[field.name] : credentials[field.name]?.trim();
      if (value) fields[field.name] = value;
    }
    if (maxRetries.trim()) fields.max_retries = num(maxRetries);
    if (firstByte.trim()) fields.timeouts = { ...(editing ? { first_byte_ms: channel.timeouts.first_byte_ms } : {}), first_byte_ms: num(firstByte) };
    if (headers.trim()) fields.headers = parseHeaders(headers);
    if (authLimit.trim()) fields.auto_disable_after_auth_failures = num(authLimit);
    if (!editing) return { name: name.trim(), ...fields, priority: num(priority) ?? 0, weight: num(weight) ?? 1 };
    // An edit sends what changed only: the rest (a file channel's other fields) stays as it is.
    const unchanged = (field: string, before: unknown) => JSON.stringify(fields[field]) === JSON.stringify(before);
    if (unchanged('vendor', channel.vendor)) delete fields.vendor;
    if (unchanged('models', channel.model_map)) delete fields.models;
    if (channel.simulator ? fields.base_url === undefined : unchanged('base_url', channel.base_url)) delete fields.base_url;
    if (unchanged('region', channel.region ?? undefined)) delete fields.region;
    for (const [field, value] of Object.entries(channel.settings ?? {})) if (unchanged(field, value)) delete fields[field];
    if (unchanged('max_retries', channel.max_retries)) delete fields.max_retries;
    // Emptied: the channel's own threshold goes, routing's (if any) applies.
    if (authLimit.trim() === shownAuthLimit) delete fields.auto_disable_after_auth_failures;
    else if (!authLimit.trim()) fields.auto_disable_after_auth_failures = null;
    if (fields.timeouts && (fields.timeouts as { first_byte_ms?: number }).first_byte_ms === channel.timeouts.first_byte_ms) delete fields.timeouts;
    return fields;
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const payload = body();
    if (typeof payload === 'string') return setError(payload);
    if (editing && Object.keys(payload).length === 0) return onClose();
    setBusy(true);
    setError(undefined);
    try {
      const saved = editing
        ? await api<Channel>('PATCH', `/admin/api/channels/${encodeURIComponent(channel.id)}`, payload)
        : await api<Channel>('POST', '/admin/api/channels', payload);
      onSaved(saved);
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };

  return (
    <Dialog title={editing ? `Edit channel ${channel.id}` : 'Add channel'} onClose={onClose} wide>
      <form className="form" onSubmit={submit}>
        {editing && channel.source === 'file' && (
          <p className="muted">This channel comes from the configuration file: what you change here is kept in the database and wins over the file; “Reset to file” puts the file back.</p>
        )}
        <div className="grid-2">
          {!editing && (
            <label>
              Name
              <input required maxLength={100} pattern="[A-Za-z0-9][A-Za-z0-9._\-]*" value={name} onChange={(e) => setName(e.target.value)} data-autofocus />
              <span className="hint">Shown in logs and the request log; clients never see it.</span>
            </label>
          )}
          <label>
            Vendor
            <select value={vendor} onChange={(e) => setVendor(e.target.value)} disabled={!vendors.data}>
              {(vendors.data?.data ?? []).map((v) => (
                <option key={v.vendor} value={v.vendor}>
                  {v.vendor}
                </option>
              ))}
            </select>
          </label>
        </div>
        <label>
          Base URL
          <input type="url" required={chosen?.base_url_required} value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} placeholder={chosen?.base_url_required ? '' : 'empty: the built-in simulator'} />
          <span className="hint">The vendor's address{chosen ? `, e.g. ${chosen.default_base_url}` : ''}.</span>
        </label>
        {vendors.error !== undefined && <ErrorNote error={vendors.error} retry={vendors.reload} />}
        {chosen && <CredentialInputs fields={chosen.credentials} values={credentials} onChange={(name, value) => setCredentials((all) => ({ ...all, [name]: value }))} channel={channel} />}
        <label>
          Models (one per line: public id = upstream model name)
          <textarea required value={models} onChange={(e) => setModels(e.target.value)} placeholder={'gpt-5-mini = gpt-5-mini\ndelta-4.1 = gpt-4.1'} />
          <span className="hint">A public id must be a model of the catalog: the spec's, one added under Models & prices, or one of the built-in price sheet.</span>
        </label>
        <div className="grid-3">
          {!editing && (
            <>
              <label>
                Priority
                <input type="number" min={-1000} max={1000} step={1} value={priority} onChange={(e) => setPriority(e.target.value)} />
              </label>
              <label>
                Weight
                <input type="number" min={1} max={1000} step={1} value={weight} onChange={(e) => setWeight(e.target.value)} />
              </label>
            </>
          )}
          <label>
            Retries
            <input type="number" min={0} max={10} step={1} value={maxRetries} onChange={(e) => setMaxRetries(e.target.value)} placeholder="2" />
          </label>
          <label>
            First-byte timeout (ms)
            <input type="number" min={1} step={1} value={firstByte} onChange={(e) => setFirstByte(e.target.value)} placeholder="120000" />
          </label>
          <label>
            Auto-disable after auth failures
            <input type="number" min={0} max={1000} step={1} value={authLimit} onChange={(e) => setAuthLimit(e.target.value)} placeholder="off" />
            <span className="hint">Consecutive 401/403 answers from the vendor that disable this channel; 0: never; empty: the routing default (off unless set).</span>
          </label>
        </div>
        <label>
          Extra headers (one per line: Name: value)
          <textarea value={headers} onChange={(e) => setHeaders(e.target.value)} placeholder={editing && Object.keys(channel.headers).length > 0 ? `unchanged: ${Object.keys(channel.headers).join(', ')}` : 'anthropic-beta: …'} />
        </label>
        <FormFooter error={error} busy={busy} label={editing ? 'Save channel' : 'Add channel'} busyLabel="Saving…" onCancel={onClose} />
      </form>
    </Dialog>
  );
}
