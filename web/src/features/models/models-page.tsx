import { useState } from 'react';
import { Link } from 'react-router';
import { ActionsCell, DataCell, DataRow, DataTable, RowHeader } from '../../components/data-table';
import { useNotify } from '../../shell/notify';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { Empty, ErrorNote, NotAvailable } from '../../components/states';
import { Loading } from '../../shell/loading';
import { api, isNotAvailable } from '../../lib/api';
import { usePageTitle } from '../../lib/page-title';
import type { CatalogModel, ListAnswer } from '../../lib/types';
import { useLoad } from '../../lib/use-load';
import { AddModelDialog, PriceDialog } from './model-dialogs';
import { priceSummary } from './price-fields';

type Pending = { kind: 'add' } | { kind: 'price'; model: CatalogModel } | { kind: 'delete'; model: CatalogModel };

const SOURCE: Record<CatalogModel['source'], string> = { spec: 'specification', builtin: 'price sheet', file: 'configuration file', runtime: 'added here' };

/**
 * Operators: the model catalog and its prices (issue 21): the spec's models, the operator's, and
 * the price sheet's that a channel serves; who serves each and what it costs. Models and prices
 * added or changed here apply at once on every instance, no restart.
 */
export function ModelsPage() {
  usePageTitle('Models & prices');
  const notify = useNotify();
  const models = useLoad((signal) => api<ListAnswer<CatalogModel>>('GET', '/admin/api/models', undefined, { signal }), []);
  const [pending, setPending] = useState<Pending>();
  const done = (message: string) => {
    setPending(undefined);
    notify(message);
    models.reload();
  };
  if (isNotAvailable(models.error)) return <NotAvailable what="The model catalog" endpoint="GET /admin/api/models" />;
  const list = models.data?.data ?? [];
  return (
    <section aria-labelledby="models-title">
      <div className="page-head">
        <h1 id="models-title">Models &amp; prices</h1>
        <button type="button" className="primary" onClick={() => setPending({ kind: 'add' })}>
          Add model
        </button>
      </div>
      <p className="muted">
        Prices in USD. Without a price of yours a model costs what the built-in price sheet says of the upstream model its channel maps it to. A model is served once a
        channel maps it (<Link to="/channels">Channels</Link>).
      </p>
      {models.error !== undefined && <ErrorNote error={models.error} retry={models.reload} />}
      {models.loading && !models.data && <Loading what="Loading models" />}
      {models.data && list.length === 0 && <Empty>No models.</Empty>}
      {list.length > 0 && (
        <DataTable caption={`Models (${list.length})`} columns={['Model', 'Kind', 'From', 'Channels (priority order)', 'Price', { label: 'Actions', hidden: true }]}>
          {list.map((model) => (
            <DataRow key={model.id}>
              <RowHeader className="name-cell" title={`${model.id} · ${model.families.join(', ')}`}>
                {model.id}
                <div className="muted small">{model.vendor}</div>
              </RowHeader>
              <DataCell label="Kind">{model.kind}</DataCell>
              <DataCell label="From">{SOURCE[model.source]}</DataCell>
              <DataCell label="Channels (priority order)">
                {model.served ? (model.channels.length > 0 ? model.channels.join(' → ') : 'none enabled') : 'not served yet'}
                {model.simulated && <div className="badge badge-half_open">simulated answers</div>}
              </DataCell>
              <DataCell label="Price" className="clip" title={`${priceSummary(model.price)}${model.price_basis ? ` (${model.price_basis})` : ''}`}>
                {freeSimulated(model) ? 'free (simulator)' : priceSummary(model.price)}
                <div className="muted small">{freeSimulated(model) ? `${priceSummary(model.price)} once a vendor serves it` : model.price_source === 'builtin' ? 'built-in' : model.price_runtime ? 'set here' : model.price_source === 'operator' ? 'configuration file' : '—'}</div>
              </DataCell>
              <ActionsCell>
                <button type="button" onClick={() => setPending({ kind: 'price', model })} aria-label={`Edit the price of ${model.id}`}>
                  Price
                </button>
                {model.source === 'runtime' && (
                  <button type="button" className="danger" onClick={() => setPending({ kind: 'delete', model })} aria-label={`Delete ${model.id}`}>
                    Delete
                  </button>
                )}
                <Link to={`/requests?model=${encodeURIComponent(model.id)}`} aria-label={`Requests for ${model.id}`}>
                  Requests
                </Link>
              </ActionsCell>
            </DataRow>
          ))}
        </DataTable>
      )}
      {pending?.kind === 'add' && <AddModelDialog onClose={() => setPending(undefined)} onSaved={(model) => done(`Model ${model.id} added.`)} />}
      {pending?.kind === 'price' && <PriceDialog model={pending.model} onClose={() => setPending(undefined)} onSaved={(model) => done(`Price of ${model.id} saved.`)} />}
      {pending?.kind === 'delete' && <DeleteModelDialog model={pending.model} onClose={() => setPending(undefined)} onDeleted={done} />}
    </section>
  );
}

/** Simulated answers are not billed at the sheet's prices, only at the operator's own (issue 35). */
const freeSimulated = (model: CatalogModel): boolean => model.simulated === true && model.price_source === 'builtin';

/** Deleting a model offers to take it out of users' allowances and keys' model lists too (issue 35). */
function DeleteModelDialog({ model, onClose, onDeleted }: { model: CatalogModel; onClose: () => void; onDeleted: (message: string) => void }) {
  const [prune, setPrune] = useState(true);
  return (
    <ConfirmDialog
      title={`Delete model ${model.id}?`}
      confirmLabel="Delete model"
      danger
      onClose={onClose}
      onConfirm={async () => {
        await api('DELETE', `/admin/api/models/${encodeURIComponent(model.id)}${prune ? '?prune=true' : ''}`);
        onDeleted(prune ? `Model ${model.id} deleted and removed from allowances and keys.` : `Model ${model.id} deleted.`);
      }}
    >
      <p>Requests naming it are refused from now on; its usage history stays. A channel that still maps it must drop it first.</p>
      <label className="inline">
        <input type="checkbox" checked={prune} onChange={(event) => setPrune(event.target.checked)} />
        Also remove it from users' allowances and keys' model lists
      </label>
      <p className="hint">Left in, it is hidden there and granted to no new key; a model added again with this id would count again.</p>
    </ConfirmDialog>
  );
}
