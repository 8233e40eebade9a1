import { useSearchParams } from 'react-router';
import { apiBase, useUser } from '../../shell/session';
import { Empty, ErrorNote, NotAvailable, StatusBadge } from '../../components/states';
import { Loading } from '../../shell/loading';
import { isNotAvailable, queryString } from '../../lib/api';
import { formatTime } from '../../lib/format';
import { usePageTitle } from '../../lib/page-title';
import type { VideoTask } from '../../lib/log-types';
import { useCursorPages } from '../../components/use-cursor-pages';

const PAGE_SIZE = 50;
// The task states of src/tasks/video-task.ts.
const STATUSES = ['queued', 'in_progress', 'completed', 'failed'] as const;

/** Asynchronous video tasks, newest first, with their progress and result link. */
export function TasksPage() {
  usePageTitle('Video tasks');
  const user = useUser();
  const base = apiBase(user);
  const isOperator = user.role === 'operator';
  const [params, setParams] = useSearchParams();
  const status = params.get('status') ?? '';
  const { first, rows, more } = useCursorPages<VideoTask>((before) => `${base}/tasks${queryString({ status, before, limit: PAGE_SIZE })}`, [base, status]);

  if (isNotAvailable(first.error)) {
    return (
      <section aria-labelledby="tasks-title">
        <h1 id="tasks-title">Video tasks</h1>
        <NotAvailable what="The video task list" endpoint={`GET ${base}/tasks`} />
      </section>
    );
  }

  return (
    <section aria-labelledby="tasks-title">
      <div className="page-head">
        <h1 id="tasks-title">Video tasks</h1>
        <button type="button" onClick={first.reload}>
          Refresh
        </button>
      </div>
      <div className="filters">
        <label>
          Status
          <select value={status} onChange={(e) => setParams(e.target.value ? { status: e.target.value } : {})}>
            <option value="">Any status</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </div>
      {first.error !== undefined && <ErrorNote error={first.error} retry={first.reload} />}
      {first.loading && !first.data && <Loading what="Loading tasks" />}
      {first.data && rows.length === 0 && <Empty>No video tasks{status ? ` with status “${status}”` : ''} yet.</Empty>}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Video tasks ({rows.length} shown)</caption>
            <thead>
              <tr>
                <th scope="col">Task</th>
                <th scope="col">Model</th>
                <th scope="col">Status</th>
                <th scope="col">Progress</th>
                {isOperator && <th scope="col">Channel</th>}
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Finished</th>
                <th scope="col">Result</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((task) => (
                <tr key={task.id}>
                  <th scope="row" className="mono">
                    {task.id}
                  </th>
                  <td>{task.model}</td>
                  <td>
                    <StatusBadge status={task.status} />
                  </td>
                  <td>
                    {task.progress === null ? (
                      '—'
                    ) : (
                      <span className="row">
                        <progress max={100} value={task.progress} aria-label={`Progress of ${task.id}`} /> {Math.round(task.progress)} %
                      </span>
                    )}
                  </td>
                  {isOperator && <td>{task.channel ?? '—'}</td>}
                  <td className="clip" title={task.key_id ?? undefined}>
                    {task.key_name ?? task.key_id ?? '—'}
                  </td>
                  <td title={task.created_at}>{formatTime(task.created_at)}</td>
                  <td title={task.finished_at ?? undefined}>{formatTime(task.finished_at)}</td>
                  <td>
                    {task.result_url ? (
                      <a href={task.result_url} target="_blank" rel="noreferrer">
                        Open result
                      </a>
                    ) : task.error ? (
                      <span className="error" title={task.error.message}>
                        {task.error.code}
                      </span>
                    ) : (
                      '—'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {more}
    </section>
  );
}
