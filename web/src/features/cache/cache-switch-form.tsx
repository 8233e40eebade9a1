import { useState, type FormEvent } from 'react';

/** One switch as GET /admin/api/cache shows it. */
export interface CacheSwitch {
  enabled: boolean;
  ttlS: number | null;
  hitCostFraction?: number | null;
  mode?: 'exact' | 'semantic' | null;
}

interface CacheSwitchFormProps {
  /** `global`, a model id, or `new model` (the form asks for the id). */
  label: string;
  value: CacheSwitch;
  /** The file's fraction, shown when the switch has none. */
  defaultFraction: number;
  isNew?: boolean;
  onSave: (value: CacheSwitch, model?: string) => void;
  onRemove?: () => void;
}

const numberOrNull = (text: string): number | null => (text.trim() === '' ? null : Number(text));

/** On or off, the default TTL and what a hit costs, for the global switch or one model's. */
export function CacheSwitchForm({ label, value, defaultFraction, isNew = false, onSave, onRemove }: CacheSwitchFormProps) {
  const [model, setModel] = useState('');
  const [enabled, setEnabled] = useState(value.enabled);
  const [ttl, setTtl] = useState(value.ttlS === null ? '' : String(value.ttlS));
  const [mode, setMode] = useState<'' | 'exact' | 'semantic'>(value.mode ?? '');
  const [fraction, setFraction] = useState(value.hitCostFraction === null || value.hitCostFraction === undefined ? '' : String(value.hitCostFraction));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSave({ enabled, ttlS: numberOrNull(ttl), hitCostFraction: numberOrNull(fraction), mode: mode === '' ? null : mode }, isNew ? model.trim() : undefined);
    if (isNew) setModel('');
  };

  return (
    <form className="filters" onSubmit={submit} aria-label={`Cache setting: ${label}`}>
      {isNew && (
        <label>
          Model
          <input required maxLength={200} value={model} onChange={(e) => setModel(e.target.value)} placeholder="public model id" />
        </label>
      )}
      {!isNew && label !== 'global' && <strong className="mono">{label}</strong>}
      <label>
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        Cache on
      </label>
      <label>
        TTL (seconds)
        <input type="number" min={1} max={31536000} step={1} value={ttl} onChange={(e) => setTtl(e.target.value)} placeholder="3600" />
      </label>
      <label>
        Mode
        <select value={mode} onChange={(e) => setMode(e.target.value as typeof mode)}>
          <option value="">{label === 'global' ? 'From the file (exact)' : 'Follow global'}</option>
          <option value="exact">Exact</option>
          <option value="semantic">Semantic</option>
        </select>
      </label>
      <label>
        Hit cost (share of the price)
        <input type="number" min={0} max={1} step="0.01" value={fraction} onChange={(e) => setFraction(e.target.value)} placeholder={String(defaultFraction)} />
      </label>
      <button type="submit" className="primary">
        {isNew ? 'Add' : 'Save'}
      </button>
      {onRemove && (
        <button type="button" onClick={onRemove}>
          {label === 'global' ? 'Reset to file' : 'Remove'}
        </button>
      )}
    </form>
  );
}
