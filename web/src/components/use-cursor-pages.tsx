import { useEffect, useState, type ReactNode } from 'react';
import { ErrorNote } from './states';
import { api } from '../lib/api';
import type { Page } from '../lib/log-types';
import { useLoad, type Loaded } from '../lib/use-load';

export interface CursorPages<T> {
  /** The first page's load (its error, reload, and whether it is still loading). */
  first: Loaded<Page<T>>;
  /** Every row loaded so far, first page first. */
  rows: T[];
  /** The "load more" control and its error, empty on the last page. */
  more: ReactNode;
}

/**
 * A newest-first list paged by the API's `next_before` cursor: the first page loads when `deps`
 * change, later pages are appended by a "Load more" button. `url(before)` is the page's address.
 */
export function useCursorPages<T>(url: (before?: string) => string, deps: readonly unknown[]): CursorPages<T> {
  const [rows, setRows] = useState<T[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [state, setState] = useState<{ loading: boolean; error?: unknown }>({ loading: false });
  const first = useLoad((signal) => api<Page<T>>('GET', url(), undefined, { signal }), deps);

  useEffect(() => {
    if (!first.data) return;
    setRows(first.data.data);
    setNext(first.data.next_before);
  }, [first.data]);

  const loadMore = async () => {
    if (!next) return;
    setState({ loading: true });
    try {
      const page = await api<Page<T>>('GET', url(next));
      setRows((current) => [...current, ...page.data]);
      setNext(page.next_before);
      setState({ loading: false });
    } catch (error) {
      setState({ loading: false, error });
    }
  };

  const more = (
    <>
      {state.error !== undefined && <ErrorNote error={state.error} retry={() => void loadMore()} />}
      {next && (
        <div className="row" style={{ marginTop: '0.8rem' }}>
          <button type="button" onClick={() => void loadMore()} disabled={state.loading}>
            {state.loading ? 'Loading…' : 'Load more'}
          </button>
        </div>
      )}
    </>
  );
  return { first, rows, more };
}
