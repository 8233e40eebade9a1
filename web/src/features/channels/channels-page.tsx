import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { useNotify } from '../../shell/notify';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { Empty, ErrorNote, NotAvailable } from '../../components/states';
import { Loading } from '../../shell/loading';
import { api, isNotAvailable, messageOf } from '../../lib/api';
import { DataTable } from '../../components/data-table';
import { usePageTitle } from '../../lib/page-title';
import type { Channel, ChannelTest, ListAnswer } from '../../lib/types';
import { useLoad } from '../../lib/use-load';
import { ChannelDialog } from './channel-dialog';
import { ChannelRow, type TestState } from './channel-row';
import { ChannelTestDialog } from './channel-test-dialog';

type Pending = { kind: 'test'; channel: Channel } | { kind: 'add' } | { kind: 'edit'; channel: Channel } | { kind: 'remove'; channel: Channel } | { kind: 'disable'; channel: Channel };

/** Tests at a time during "Test all": enough to be quick, few enough not to look like a burst upstream. */
const TEST_CONCURRENCY = 3;

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
  const [tests, setTests] = useState<Record<string, TestState>>({});
  const [testingAll, setTestingAll] = useState(false);
  useEffect(() => setRows(channels.data?.data ?? []), [channels.data]);
  const setTest = (id: string, state: TestState) => setTests((all) => ({ ...all, [id]: state }));
  const runTest = async (id: string) => {
    setTest(id, { running: true });
    try {
      setTest(id, { running: false, result: await api<ChannelTest>('POST', `/admin/api/channels/${encodeURIComponent(id)}/test`) });
    } catch (error) {
      setTest(id, { running: false, error: messageOf(error) });
    }
  };
  /** Tests every enabled channel, a few at a time; each row shows its result as it lands. */
  const testAll = async () => {
    const queue = rows.filter((c) => c.enabled).map((c) => c.id);
    setTestingAll(true);
    const worker = async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) await runTest(id);
    };
    await Promise.all(Array.from({ length: TEST_CONCURRENCY }, worker));
    setTestingAll(false);
    notify('Every enabled channel was tested: the results are on their rows.');
    channels.reload();
  };
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
        <div className="row">
          <button type="button" onClick={() => void testAll()} disabled={testingAll || rows.length === 0}>
            {testingAll ? 'Testing…' : 'Test all'}
          </button>
          <button type="button" className="primary" onClick={() => setPending({ kind: 'add' })}>
            Add channel
          </button>
        </div>
      </div>
      <p className="muted">
        A channel is one vendor account. Added or edited here, it serves traffic at once on every instance. Enabling or disabling applies at once; weight and priority
        when you press Save on the row. Models and their prices: <Link to="/models">Models &amp; prices</Link>.
      </p>
      {rows.length > 0 && (
        <p className="muted small">
          Requests, error rate, latency and last error cover <strong>this instance’s last {Math.round((rows[0]!.window_s ?? 300) / 60)} minutes</strong>: each instance counts
          the traffic it sent. State, weight, priority, test results and the reason a channel was disabled are the same on every instance.
        </p>
      )}
      {channels.error !== undefined && <ErrorNote error={channels.error} retry={channels.reload} />}
      {channels.loading && !channels.data && <Loading what="Loading channels" />}
      {channels.data && rows.length === 0 && <Empty>No channels are configured.</Empty>}
      {rows.length > 0 && (
        <DataTable
          caption={`Channels (${rows.length})`}
          columns={[
            'Channel', 'State', 'Circuit', 'Models', 'Weight', 'Priority', { label: 'Requests (5 min)', className: 'num' }, { label: 'Error rate', className: 'num' },
            { label: 'Latency p50 / p99', className: 'num' }, 'Last error', { label: 'Actions', hidden: true },
          ]}
        >
          {rows.map((channel) => (
            <ChannelRow
              key={channel.id}
              channel={channel}
              test={tests[channel.id]}
              onTest={() => setPending({ kind: 'test', channel })}
              onChanged={(updated) => setRows((list) => list.map((c) => (c.id === updated.id ? updated : c)))}
              onDisable={() => setPending({ kind: 'disable', channel })}
              onEdit={() => setPending({ kind: 'edit', channel })}
              onRemove={() => setPending({ kind: 'remove', channel })}
            />
          ))}
        </DataTable>
      )}
      {pending?.kind === 'disable' && (
        <ConfirmDialog
          title={`Disable ${pending.channel.id}?`}
          confirmLabel="Disable channel"
          danger
          onClose={() => setPending(undefined)}
          onConfirm={async () => {
            const updated = await api<Channel>('PATCH', `/admin/api/channels/${encodeURIComponent(pending.channel.id)}`, { enabled: false });
            setRows((list) => list.map((c) => (c.id === updated.id ? updated : c)));
            setPending(undefined);
            notify(`${updated.id} disabled.`);
          }}
        >
          <p>
            It stops serving at once, on every instance. Requests for its models go to the other channels that serve them; a model only it serves answers an
            error until it is enabled again.
          </p>
        </ConfirmDialog>
      )}
      {pending?.kind === 'test' && (
        <ChannelTestDialog
          channel={rows.find((c) => c.id === pending.channel.id) ?? pending.channel}
          onTested={(result) => setTest(pending.channel.id, { running: false, result })}
          onClose={() => setPending(undefined)}
        />
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
