import { useState, type FormEvent, type ReactNode } from 'react';
import { isoToLocalInput, localInputToIso, localZoneLabel } from '../lib/format';
import type { ApiKey, ConsoleModel } from '../lib/types';

export interface UsageFilter {
  from: string | undefined;
  to: string | undefined;
  key: string | undefined;
  model: string | undefined;
}

export interface FilterBarProps {
  value: UsageFilter;
  keys: readonly ApiKey[];
  models: readonly ConsoleModel[];
  onApply: (value: UsageFilter) => void;
  /** Extra controls (status, …) for pages that filter more. */
  children?: ReactNode;
}

/** From/to (local time), key and model; applied on submit so typing a date does not fire requests. */
export function FilterBar({ value, keys, models, onApply, children }: FilterBarProps) {
  const [from, setFrom] = useState(isoToLocalInput(value.from));
  const [to, setTo] = useState(isoToLocalInput(value.to));
  const [key, setKey] = useState(value.key ?? '');
  const [model, setModel] = useState(value.model ?? '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ from: localInputToIso(from), to: localInputToIso(to), key: key || undefined, model: model || undefined });
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Filters">
      <label>
        From ({localZoneLabel()})
        <input type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} />
      </label>
      <label>
        To
        <input type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} />
      </label>
      <label>
        Key
        <select value={key} onChange={(e) => setKey(e.target.value)}>
          <option value="">All keys</option>
          {keys.map((k) => (
            <option key={k.id} value={k.id}>
              {k.name} ({k.prefix}…){k.status === 'revoked' ? ' — revoked' : ''}
            </option>
          ))}
        </select>
      </label>
      <label>
        Model
        <select value={model} onChange={(e) => setModel(e.target.value)}>
          <option value="">All models</option>
          {models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.id}
            </option>
          ))}
        </select>
      </label>
      {children}
      <div className="filter-actions">
        <button type="submit" className="primary">
          Apply
        </button>
      </div>
    </form>
  );
}
