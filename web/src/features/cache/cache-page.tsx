import { useState } from 'react';
import { ErrorNote } from '../../components/states';
import { api, messageOf } from '../../lib/api';
import { formatCount } from '../../lib/format';
import { usePageTitle } from '../../lib/page-title';
import { useLoad } from '../../lib/use-load';
import { Loading } from '../../shell/loading';
import { useNotify } from '../../shell/notify';
import { CacheSwitchForm, type CacheSwitch } from './cache-switch-form';

/** GET /admin/api/cache. */
interface CacheView {
  global: CacheSwitch | null;
  models: Record<string, CacheSwitch>;
  hit_cost_fraction: number;
  semantic: { embedding_model: string; threshold: number; indexed: number | null } | null;
  max_bytes: number;
  stored_bytes: number;
  counts: { hits: number; misses: number; bypasses: number; bytesServed: number; bytesStored: number };
}

const megabytes = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

/** /console/cache (operators): the response cache's switches, hit cost, counters and purges (issue 32). */
export function CachePage() {
  usePageTitle('Response cache');
  const notify = useNotify();
  const view = useLoad((signal) => api<CacheView>('GET', '/admin/api/cache', undefined, { signal }), []);
  const [purgeModel, setPurgeModel] = useState('');

  const act = async (action: () => Promise<string>) => {
    try {
      notify(await action());
      view.reload();
    } catch (error) {
      notify(messageOf(error), 'error');
    }
  };
  const saveSwitch = (target: string, value: CacheSwitch) =>
    act(async () => {
      await api('PUT', `/admin/api/cache/switches/${encodeURIComponent(target)}`, { enabled: value.enabled, ttl_seconds: value.ttlS, hit_cost_fraction: value.hitCostFraction ?? null, mode: value.mode ?? null });
      return target === '*' ? 'Global cache setting saved.' : `Cache setting of ${target} saved.`;
    });
  const removeSwitch = (target: string) =>
    act(async () => {
      await api('DELETE', `/admin/api/cache/switches/${encodeURIComponent(target)}`);
      return target === '*' ? 'Global cache setting reset to the configuration file.' : `Cache setting of ${target} removed.`;
    });
  const purge = (model: string | undefined) =>
    act(async () => {
      const answer = await api<{ deleted: number }>('DELETE', `/admin/api/cache${model ? `?model=${encodeURIComponent(model)}` : ''}`);
      return `${answer.deleted} cached answer${answer.deleted === 1 ? '' : 's'} purged.`;
    });

  const data = view.data;
  return (
    <section aria-labelledby="cache-title">
      <div className="page-head">
        <h1 id="cache-title">Response cache</h1>
      </div>
      <p className="muted">
        A repeated request (same model and body, in the same key owner's scope) is answered from the store with <code>x-cache: HIT</code>. Keys turn it on or off for themselves on the API keys page.
      </p>
      {view.error !== undefined && <ErrorNote error={view.error} retry={view.reload} />}
      {view.loading && !data && <Loading what="Loading the cache" />}
      {data && (
        <>
          <dl className="kv" aria-label="Cache counters">
            <dt>Hits</dt>
            <dd>{formatCount(data.counts.hits)}</dd>
            <dt>Misses</dt>
            <dd>{formatCount(data.counts.misses)}</dd>
            <dt>Bypasses</dt>
            <dd>{formatCount(data.counts.bypasses)}</dd>
            <dt>Semantic mode</dt>
            <dd>{data.semantic ? `${data.semantic.embedding_model}, similarity ≥ ${data.semantic.threshold}, ${data.semantic.indexed === null ? 'questions shared in Redis' : `${formatCount(data.semantic.indexed)} questions indexed`}` : 'not configured (cache.semantic): every mode matches exactly'}</dd>
            <dt>Stored</dt>
            <dd>
              {megabytes(data.stored_bytes)} of {megabytes(data.max_bytes)}
            </dd>
          </dl>
          <h2>Global</h2>
          <CacheSwitchForm
            label="global"
            value={data.global ?? { enabled: false, ttlS: null, hitCostFraction: null }}
            defaultFraction={data.hit_cost_fraction}
            onSave={(value) => void saveSwitch('*', value)}
            onRemove={() => void removeSwitch('*')}
          />
          <h2>Per model</h2>
          {Object.entries(data.models).map(([model, value]) => (
            <CacheSwitchForm key={model} label={model} value={value} defaultFraction={data.hit_cost_fraction} onSave={(v) => void saveSwitch(model, v)} onRemove={() => void removeSwitch(model)} />
          ))}
          <CacheSwitchForm label="new model" isNew value={{ enabled: true, ttlS: null, hitCostFraction: null }} defaultFraction={data.hit_cost_fraction} onSave={(value, model) => void saveSwitch(model ?? '', value)} />
          <h2>Purge</h2>
          <div className="filters">
            <label>
              Model (empty: every model)
              <input value={purgeModel} onChange={(e) => setPurgeModel(e.target.value)} placeholder="every model" />
            </label>
            <button type="button" className="danger" onClick={() => void purge(purgeModel.trim() || undefined)}>
              Purge cached answers
            </button>
          </div>
        </>
      )}
    </section>
  );
}
