import type { PriceForm } from './price-fields';
import { TOKEN_FIELDS } from './price-fields';

/** The inputs of a price (issue 21): every dimension vendors bill, empty for “falls back”. */
export function PriceInputs({ form, onChange }: { form: PriceForm; onChange: (form: PriceForm) => void }) {
  const set = (patch: Partial<PriceForm>) => onChange({ ...form, ...patch });
  return (
    <>
      <fieldset>
        <legend>Tokens (USD per 1M)</legend>
        <p className="hint">Empty: cached input and cache writes cost the input price, reasoning and image output the output price, image input the input price.</p>
        <div className="grid-3">
          {TOKEN_FIELDS.map(([field, label]) => (
            <label key={field}>
              {label}
              <input type="number" min={0} step="any" value={form.tokens[field]} onChange={(e) => set({ tokens: { ...form.tokens, [field]: e.target.value } })} />
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset>
        <legend>Long context</legend>
        <div className="grid-2">
          <label>
            Above input tokens
            <input type="number" min={1} step={1} value={form.longThreshold} onChange={(e) => set({ longThreshold: e.target.value })} placeholder="e.g. 200000" />
          </label>
          <label>
            Input then (per 1M)
            <input type="number" min={0} step="any" value={form.longInput} onChange={(e) => set({ longInput: e.target.value })} />
          </label>
          <label>
            Cached input then (per 1M)
            <input type="number" min={0} step="any" value={form.longCached} onChange={(e) => set({ longCached: e.target.value })} />
          </label>
          <label>
            Output then (per 1M)
            <input type="number" min={0} step="any" value={form.longOutput} onChange={(e) => set({ longOutput: e.target.value })} />
          </label>
        </div>
      </fieldset>
      <fieldset>
        <legend>Images and video</legend>
        <div className="grid-2">
          <label>
            Per image (USD)
            <input type="number" min={0} step="any" value={form.perImage} onChange={(e) => set({ perImage: e.target.value })} />
          </label>
          <label>
            Per video second (USD)
            <input type="number" min={0} step="any" value={form.perVideoSecond} onChange={(e) => set({ perVideoSecond: e.target.value })} />
          </label>
          <label>
            Per image by size and quality
            <textarea value={form.imageSizes} onChange={(e) => set({ imageSizes: e.target.value })} placeholder={'1024x1024 high = 0.167\n1024x1024 = 0.042'} />
          </label>
          <label>
            Per video second by resolution
            <textarea value={form.videoResolutions} onChange={(e) => set({ videoResolutions: e.target.value })} placeholder={'720P = 0.10\n1080P = 0.15'} />
          </label>
        </div>
      </fieldset>
    </>
  );
}
