import { useState, type FormEvent } from 'react';
import { Dialog } from '../../components/dialog';
import { ScopePicker } from '../../components/scope-picker';
import { api, messageOf } from '../../lib/api';
import { userBudgetWords } from '../../lib/format';
import type { ConsoleModel, CreatedKey, User } from '../../lib/types';
import { McpGrantPicker, type McpGrant } from './mcp-grant-picker';

export interface CreateKeyDialogProps {
  user: User;
  base: string;
  models: readonly ConsoleModel[];
  /** Operators may make a key for someone else. */
  owners: readonly User[];
  onCreated: (key: CreatedKey) => void;
  onClose: () => void;
}

const EXPIRY_DAYS = ['1', '7', '30', '90'] as const;

function expiryIso(choice: string, custom: string): string | undefined {
  if (choice === 'never') return undefined;
  if (choice === 'custom') return custom ? new Date(`${custom}T23:59:59`).toISOString() : undefined;
  return new Date(Date.now() + Number(choice) * 86_400_000).toISOString();
}

const positive = (text: string): number | undefined => (text.trim() === '' ? undefined : Number(text));

/** Name, owner (operators), models, endpoint families, limits, budget and expiry of a new key. */
export function CreateKeyDialog({ user, base, models, owners, onCreated, onClose }: CreateKeyDialogProps) {
  const isOperator = user.role === 'operator';
  const families = [...new Set(models.flatMap((m) => m.families))].sort();
  const [name, setName] = useState('');
  const [owner, setOwner] = useState(user.id);
  const [chosenModels, setChosenModels] = useState<string[] | null>(null);
  const [chosenFamilies, setChosenFamilies] = useState<string[] | null>(null);
  const [rpm, setRpm] = useState('');
  const [mcp, setMcp] = useState<McpGrant>({});
  const [tpm, setTpm] = useState('');
  const [budget, setBudget] = useState('');
  const [expiry, setExpiry] = useState('never');
  const [customExpiry, setCustomExpiry] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const allLabel = isOperator ? 'All' : 'All my allowance gives';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    if (chosenModels?.length === 0) return setError('Choose at least one model, or “All”.');
    if (chosenFamilies?.length === 0) return setError('Choose at least one endpoint family, or “All”.');
    if (expiry === 'custom' && !customExpiry) return setError('Choose the expiry date.');
    const body: Record<string, unknown> = { name: name.trim() };
    if (isOperator) body.owner = owner;
    if (chosenModels) body.models = chosenModels;
    if (chosenFamilies) body.endpoints = chosenFamilies;
    if (isOperator && Object.keys(mcp).length > 0) body.mcp = mcp;
    if (positive(rpm) !== undefined) body.rpm = positive(rpm);
    if (positive(tpm) !== undefined) body.tpm = positive(tpm);
    if (positive(budget) !== undefined) body.budget_usd = positive(budget);
    const expiresAt = expiryIso(expiry, customExpiry);
    if (expiresAt) body.expires_at = expiresAt;
    setBusy(true);
    try {
      onCreated(await api<CreatedKey>('POST', `${base}/keys`, body));
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };

  return (
    <Dialog title="Create key" onClose={onClose} wide>
      <form className="form" onSubmit={submit}>
        <label>
          Name
          <input required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} data-autofocus />
          <span className="hint">What the key is for, e.g. “billing service, production”.</span>
        </label>
        {isOperator && (
          <label>
            Owner
            <select value={owner} onChange={(e) => setOwner(e.target.value)}>
              {owners.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.id === user.id ? `Me (${u.email ?? u.name})` : `${u.name}${u.email ? ` <${u.email}>` : ''}`}
                </option>
              ))}
            </select>
          </label>
        )}
        <ScopePicker legend="Models" options={models.map((m) => m.id)} value={chosenModels} onChange={setChosenModels} allLabel={allLabel} someLabel="Only these models" />
        <ScopePicker legend="Endpoint families" options={families} value={chosenFamilies} onChange={setChosenFamilies} allLabel={allLabel} someLabel="Only these families" />
        {isOperator && <McpGrantPicker value={mcp} onChange={setMcp} />}
        <div className="grid-3">
          <label>
            Requests per minute
            <input type="number" min={1} step={1} inputMode="numeric" value={rpm} onChange={(e) => setRpm(e.target.value)} placeholder={user.rpm ? `up to ${user.rpm}` : 'no limit'} />
          </label>
          <label>
            Tokens per minute
            <input type="number" min={1} step={1} inputMode="numeric" value={tpm} onChange={(e) => setTpm(e.target.value)} placeholder={user.tpm ? `up to ${user.tpm}` : 'no limit'} />
          </label>
          <label>
            Budget (USD)
            <input type="number" min={0} step="0.01" inputMode="decimal" value={budget} onChange={(e) => setBudget(e.target.value)} placeholder={user.budget_usd !== null && !isOperator ? 'required' : 'no limit'} />
          </label>
        </div>
        <div className="grid-2">
          <label>
            Expires
            <select value={expiry} onChange={(e) => setExpiry(e.target.value)}>
              <option value="never">Never</option>
              {EXPIRY_DAYS.map((d) => (
                <option key={d} value={d}>
                  In {d} day{d === '1' ? '' : 's'}
                </option>
              ))}
              <option value="custom">On a date…</option>
            </select>
          </label>
          {expiry === 'custom' && (
            <label>
              Expiry date
              <input type="date" value={customExpiry} min={new Date().toISOString().slice(0, 10)} onChange={(e) => setCustomExpiry(e.target.value)} />
            </label>
          )}
        </div>
        {!isOperator && user.budget_usd !== null && <p className="hint">Your budget is {userBudgetWords(user.budget_usd, 'your')}: every key needs a budget of its own, and together (with what revoked keys spent) they must fit in it.</p>}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Creating…' : 'Create key'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
