import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { Empty, ErrorNote, Loading, NotAvailable } from '../../components/states';
import { api, isNotAvailable } from '../../lib/api';
import { usePageTitle } from '../../lib/page-title';
import type { CatalogModel, Channel, ListAnswer } from '../../lib/types';
import { useLoad } from '../../lib/use-load';
import { ChannelRow } from './channel-row';

function priceText(price: Record<string, unknown> | null): string {
  if (!price) return 'No price set';
  return Object.entries(price)
    .map(([name, value]) => `${name.replace(/_/g, ' ')}: ${String(value)}`)
    .join(' · ');
}

function ChannelsSection() {
  const channels = useLoad((signal) => api<ListAnswer<Channel>>('GET', '/admin/api/channels', undefined, { signal }), []);
  const [rows, setRows] = useState<Channel[]>([]);
  useEffect(() => setRows(channels.data?.data ?? []), [channels.data]);

  if (isNotAvailable(channels.error)) return <NotAvailable what="Channel management" endpoint="GET /admin/api/channels" />;
  return (
    <>
      {channels.error !== undefined && <ErrorNote error={channels.error} retry={channels.reload} />}
      {channels.loading && !channels.data && <Loading what="Loading channels" />}
      {channels.data && rows.length === 0 && <Empty>No channels are configured.</Empty>}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Channels ({rows.length})</caption>
            <thead>
              <tr>
                <th scope="col">Channel</th>
                <th scope="col">State</th>
                <th scope="col">Circuit</th>
                <th scope="col">Models</th>
                <th scope="col">Weight</th>
                <th scope="col">Priority</th>
                <th scope="col" className="num">Requests</th>
                <th scope="col" className="num">Error rate</th>
                <th scope="col" className="num">Latency p50 / p99</th>
                <th scope="col">Last error</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((channel) => (
                <ChannelRow key={channel.id} channel={channel} onChanged={(updated) => setRows((list) => list.map((c) => (c.id === updated.id ? updated : c)))} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function ModelsSection() {
  const models = useLoad((signal) => api<ListAnswer<CatalogModel>>('GET', '/admin/api/models', undefined, { signal }), []);
  if (isNotAvailable(models.error)) return <NotAvailable what="The model catalog view" endpoint="GET /admin/api/models" />;
  const list = models.data?.data ?? [];
  return (
    <>
      {models.error !== undefined && <ErrorNote error={models.error} retry={models.reload} />}
      {models.loading && !models.data && <Loading what="Loading models" />}
      {models.data && list.length === 0 && <Empty>No models.</Empty>}
      {list.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Models ({list.length})</caption>
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Vendor</th>
                <th scope="col">Endpoint families</th>
                <th scope="col">Channels (priority order)</th>
                <th scope="col">Price (USD)</th>
                <th scope="col">
                  <span className="visually-hidden">Links</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((model) => (
                <tr key={model.id}>
                  <th scope="row">{model.id}</th>
                  <td>{model.vendor}</td>
                  <td>{model.families.join(', ')}</td>
                  <td>{model.channels.length > 0 ? model.channels.join(' → ') : 'none'}</td>
                  <td className="clip" title={priceText(model.price)}>
                    {priceText(model.price)}
                  </td>
                  <td>
                    <Link to={`/requests?model=${encodeURIComponent(model.id)}`} aria-label={`Requests for ${model.id}`}>
                      Requests
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** Operators: upstream channels (health, enable, weight, priority, test) and the model catalog. */
export function ChannelsPage() {
  usePageTitle('Channels & models');
  return (
    <>
      <section aria-labelledby="channels-title">
        <h1 id="channels-title">Channels</h1>
        <p className="muted">Enabling or disabling applies at once. Weight and priority apply when you press Save on the row.</p>
        <ChannelsSection />
      </section>
      <section aria-labelledby="models-title">
        <h2 id="models-title">Models</h2>
        <ModelsSection />
      </section>
    </>
  );
}
