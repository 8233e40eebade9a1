import { ScopePicker } from '../../components/scope-picker';
import type { ConsoleModel, Role } from '../../lib/types';

/** The allowance an operator gives a person: text fields as typed, '' meaning "no limit". */
export interface AllowanceFields {
  role: Role;
  budget: string;
  rpm: string;
  tpm: string;
  models: string[] | null;
  families: string[] | null;
}

export const allowanceFrom = (user: { role: Role; budget_usd: number | null; rpm: number | null; tpm: number | null; models: string[] | null; families: string[] | null }): AllowanceFields => ({
  role: user.role,
  budget: user.budget_usd === null ? '' : String(user.budget_usd),
  rpm: user.rpm === null ? '' : String(user.rpm),
  tpm: user.tpm === null ? '' : String(user.tpm),
  models: user.models,
  families: user.families,
});

/** The API body: null clears a cap or list (no limit). */
export function allowanceBody(fields: AllowanceFields): Record<string, unknown> {
  const num = (text: string) => (text.trim() === '' ? null : Number(text));
  return { role: fields.role, budget_usd: num(fields.budget), rpm: num(fields.rpm), tpm: num(fields.tpm), models: fields.models, families: fields.families };
}

export function allowanceProblem(fields: AllowanceFields): string | undefined {
  if (fields.models?.length === 0) return 'Choose at least one model, or “All models”.';
  if (fields.families?.length === 0) return 'Choose at least one endpoint family, or “All families”.';
  return undefined;
}

export function AllowanceInputs({ fields, onChange, models }: { fields: AllowanceFields; onChange: (fields: AllowanceFields) => void; models: readonly ConsoleModel[] }) {
  const set = (patch: Partial<AllowanceFields>) => onChange({ ...fields, ...patch });
  const families = [...new Set(models.flatMap((m) => m.families))].sort();
  return (
    <>
      <label>
        Role
        <select value={fields.role} onChange={(e) => set({ role: e.target.value as Role })}>
          <option value="user">Key holder (manages own keys)</option>
          <option value="operator">Operator (everything)</option>
        </select>
      </label>
      {fields.role === 'user' && (
        <>
          <div className="grid-3">
            <label>
              Budget for all their keys together (USD)
              <input type="number" min={0} step="0.01" value={fields.budget} onChange={(e) => set({ budget: e.target.value })} placeholder="no limit" />
            </label>
            <label>
              Max requests per minute per key
              <input type="number" min={1} step={1} value={fields.rpm} onChange={(e) => set({ rpm: e.target.value })} placeholder="no limit" />
            </label>
            <label>
              Max tokens per minute per key
              <input type="number" min={1} step={1} value={fields.tpm} onChange={(e) => set({ tpm: e.target.value })} placeholder="no limit" />
            </label>
          </div>
          <ScopePicker legend="Models they may use" options={models.map((m) => m.id)} value={fields.models} onChange={(models) => set({ models })} allLabel="All models" />
          <ScopePicker legend="Endpoint families they may use" options={families} value={fields.families} onChange={(families) => set({ families })} allLabel="All families" />
        </>
      )}
    </>
  );
}
