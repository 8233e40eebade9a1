import { useState, type FormEvent } from 'react';
import { Dialog } from '../../components/dialog';
import { FormFooter } from '../../components/form-footer';
import { api, messageOf } from '../../lib/api';
import type { CatalogModel } from '../../lib/types';
import { priceForm, priceOf, type PriceForm } from './price-fields';
import { PriceInputs } from './price-inputs';

const KINDS = ['chat', 'reasoning', 'image', 'video', 'embedding', 'rerank'] as const;
const FAMILIES = ['chat-completions', 'messages', 'responses', 'generate-content', 'images', 'video-generations', 'embeddings', 'rerank'] as const;
const BY_KIND: Record<(typeof KINDS)[number], readonly string[]> = {
  chat: ['chat-completions', 'messages', 'responses', 'generate-content'],
  reasoning: ['chat-completions', 'messages', 'responses', 'generate-content'],
  image: ['images', 'generate-content'],
  video: ['video-generations'],
  embedding: ['embeddings'],
  rerank: ['rerank'],
};

/** Add a model the operator names (issue 21): id, kind, where it is served, and its price. */
export function AddModelDialog({ onSaved, onClose }: { onSaved: (model: CatalogModel) => void; onClose: () => void }) {
  const [id, setId] = useState('');
  const [kind, setKind] = useState<(typeof KINDS)[number]>('chat');
  const [families, setFamilies] = useState<readonly string[]>(BY_KIND.chat);
  const [ownedBy, setOwnedBy] = useState('');
  const [form, setForm] = useState<PriceForm>(priceForm(null));
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    let price;
    try {
      price = priceOf(form);
    } catch (problem) {
      return setError((problem as Error).message);
    }
    if (families.length === 0) return setError('Choose at least one endpoint family.');
    setBusy(true);
    setError(undefined);
    try {
      const body = { id: id.trim(), kind, families, ...(ownedBy.trim() ? { owned_by: ownedBy.trim() } : {}), ...(Object.keys(price).length > 0 ? { price } : {}) };
      onSaved(await api<CatalogModel>('POST', '/admin/api/models', body));
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };

  return (
    <Dialog title="Add model" onClose={onClose} wide>
      <form className="form" onSubmit={submit}>
        <div className="grid-3">
          <label>
            Model id
            <input required maxLength={128} pattern="[A-Za-z0-9][A-Za-z0-9._@\/+\-]*" value={id} onChange={(e) => setId(e.target.value)} data-autofocus />
            <span className="hint">What clients send as `model`.</span>
          </label>
          <label>
            Kind
            <select
              value={kind}
              onChange={(e) => {
                const next = e.target.value as (typeof KINDS)[number];
                setKind(next);
                setFamilies(BY_KIND[next]);
              }}
            >
              {KINDS.map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          </label>
          <label>
            Owned by
            <input maxLength={64} value={ownedBy} onChange={(e) => setOwnedBy(e.target.value)} placeholder="the channel's vendor" />
          </label>
        </div>
        <fieldset>
          <legend>Served on</legend>
          {FAMILIES.map((family) => (
            <label className="inline" key={family}>
              <input
                type="checkbox"
                checked={families.includes(family)}
                onChange={(e) => setFamilies(e.target.checked ? [...families, family] : families.filter((f) => f !== family))}
              />{' '}
              {family}
            </label>
          ))}
        </fieldset>
        <PriceInputs form={form} onChange={setForm} />
        <p className="hint">A channel then serves it: map it in a channel’s models (Channels page).</p>
        <FormFooter error={error} busy={busy} label="Add model" busyLabel="Adding…" onCancel={onClose} />
      </form>
    </Dialog>
  );
}

/** Change what a model costs; the new price bills every request from now on, on every instance. */
export function PriceDialog({ model, onSaved, onClose }: { model: CatalogModel; onSaved: (model: CatalogModel) => void; onClose: () => void }) {
  const [form, setForm] = useState<PriceForm>(priceForm(model.price));
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const save = async (price: unknown) => {
    setBusy(true);
    setError(undefined);
    try {
      onSaved(await api<CatalogModel>('PATCH', `/admin/api/models/${encodeURIComponent(model.id)}`, { price }));
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    try {
      void save(priceOf(form, model.price));
    } catch (problem) {
      setError((problem as Error).message);
    }
  };
  return (
    <Dialog title={`Price of ${model.id}`} onClose={onClose} wide>
      <form className="form" onSubmit={submit}>
        <p className="muted">
          {model.price_source === 'builtin' ? `Now the built-in price (${model.price_basis ?? 'price sheet'}). ` : ''}
          What you save here wins over the configuration file and the built-in sheet; a channel’s own price still wins for its requests.
        </p>
        <PriceInputs form={form} onChange={setForm} />
        <FormFooter error={error} busy={busy} label="Save price" busyLabel="Saving…" onCancel={onClose}>
          {model.price_runtime && (
            <button type="button" onClick={() => void save(null)} disabled={busy}>
              Reset to the default price
            </button>
          )}
        </FormFooter>
      </form>
    </Dialog>
  );
}
