import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { useNotify } from '../../app/notify';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { Empty, ErrorNote, Loading, NotAvailable } from '../../components/states';
import { api, isNotAvailable } from '../../lib/api';
import { usePageTitle } from '../../lib/page-title';
import type { Channel, ListAnswer } from '../../lib/types';
import { useLoad } from '../../lib/use-load';
import { ChannelDialog } from './channel-dialog';
import { ChannelRow } from './channel-row';

type Pending = { kind: 'add' } | { kind: 'edit'; channel: Channel } | { kind: 'remove'; channel: Channel };

/**
 * Operators: upstream channels (issues 12 and 21): health, enable, weight and priority, a test, and
 * vendor accounts added, edited and deleted at runtime. Models and prices have their own page.
 */
export function ChannelsPage() {
  usePageTitle('Channels');
  const notify = useNotify();
  const channels = useLoad((signal) => api<ListAnswer<Channel>>('GET', '/admin/api/channels', undefined, { signal }), []);
  const [rows, setRows] = useState<Channel[]>([]);
  const [pending, setPending] = useState<Pending>();
  useEffect(() => setRows(channels.data?.data ?? []), [channels.data]);
  const saved = (channel: Channel, verb: string) => {
    setPending(undefined);
    notify(`Channel ${channel.id} ${verb}.`);
    channels.reload();
  };

  if (isNotAvailable(channels.error)) return <NotAvailable what="Channel management" endpoint="GET /admin/api/channels" />;
  return (
    <section aria-labelledby="channels-title">
      <div className="page-head">
        <h1 id="channels-title">Channels</h1>
        <button type="button" className="primary" onClick={() => setPending({ kind: 'add' })}>
          Add channel
        </button>
      </div>
      <p className="muted">
        A channel is one vendor account. Added or edited here, it serves traffic at once on every instance. Enabling or disabling applies at once; weight and priority
        when you press Save on the row. Models and their prices: <Link to="/models">Models &amp; prices</Link>.
      </p>
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
                <ChannelRow
                  key={channel.id}
                  channel={channel}
                  onChanged={(updated) => setRows((list) => list.map((c) => (c.id === updated.id ? updated : c)))}
                  onEdit={() => setPending({ kind: 'edit', channel })}
                  onRemove={() => setPending({ kind: 'remove', channel })}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pending?.kind === 'add' && <ChannelDialog onClose={() => setPending(undefined)} onSaved={(channel) => saved(channel, 'added')} />}
      {pending?.kind === 'edit' && <ChannelDialog channel={pending.channel} onClose={() => setPending(undefined)} onSaved={(channel) => saved(channel, 'saved')} />}
      {pending?.kind === 'remove' && (
        <ConfirmDialog
          title={pending.channel.source === 'runtime' ? `Delete channel ${pending.channel.id}?` : `Reset ${pending.channel.id} to the file?`}
          confirmLabel={pending.channel.source === 'runtime' ? 'Delete channel' : 'Reset to file'}
          danger
          onClose={() => setPending(undefined)}
          onConfirm={async () => {
            await api('DELETE', `/admin/api/channels/${encodeURIComponent(pending.channel.id)}`);
            saved(pending.channel, pending.channel.source === 'runtime' ? 'deleted' : 'reset to the file');
          }}
        >
          <p>
            {pending.channel.source === 'runtime'
              ? 'Its models go to the other channels serving them; models only it served stop being served. Its credentials are deleted.'
              : 'What was changed at runtime is dropped; the configuration file’s definition applies again.'}
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
