import { useId } from 'react';

export interface ScopePickerProps {
  legend: string;
  options: readonly string[];
  /** null: the "all" choice (every model, or what the allowance gives). */
  value: string[] | null;
  onChange: (value: string[] | null) => void;
  allLabel: string;
  someLabel?: string;
}

/** "All" or "only these", then a checkbox per option: a labelled, keyboard-usable multi-select. */
export function ScopePicker({ legend, options, value, onChange, allLabel, someLabel = 'Only these' }: ScopePickerProps) {
  const name = useId();
  const some = value !== null;
  const toggle = (option: string, checked: boolean) => {
    const current = value ?? [];
    onChange(checked ? [...current, option] : current.filter((v) => v !== option));
  };
  return (
    <fieldset className="scope">
      <legend>{legend}</legend>
      <label className="inline">
        <input type="radio" name={name} checked={!some} onChange={() => onChange(null)} /> {allLabel}
      </label>
      <label className="inline">
        <input type="radio" name={name} checked={some} onChange={() => onChange([])} /> {someLabel}
      </label>
      {some && (
        <div className="scope-options">
          {options.length === 0 && <p className="muted">Nothing to choose from.</p>}
          {options.map((option) => (
            <label key={option} className="inline">
              <input type="checkbox" checked={value.includes(option)} onChange={(event) => toggle(option, event.target.checked)} /> {option}
            </label>
          ))}
        </div>
      )}
    </fieldset>
  );
}
