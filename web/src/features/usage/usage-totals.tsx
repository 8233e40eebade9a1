import { formatCount, formatUsd } from '../../lib/format';
import type { UsageTotals } from '../../lib/types';

/** The period's totals as cards; "not successful" counts every outcome but a success or a completed video. */
export function UsageTotalsCards({ totals }: { totals: UsageTotals }) {
  return (
    <dl className="cards" aria-label="Totals">
      <div className="card">
        <dt>Requests</dt>
        <dd>{formatCount(totals.requests)}</dd>
      </div>
      <div className="card">
        <dt>Tokens</dt>
        <dd>{formatCount(totals.total_tokens)}</dd>
      </div>
      <div className="card">
        <dt>Cost</dt>
        <dd>{formatUsd(totals.cost_usd)}</dd>
      </div>
      {(totals.cache_hits ?? 0) > 0 && (
        <div className="card">
          <dt>Cache hits</dt>
          <dd>
            {formatCount(totals.cache_hits)} <span className="small muted">saved {formatUsd(totals.saved_cost_usd ?? 0)}</span>
          </dd>
        </div>
      )}
      <div className="card">
        <dt>Not successful</dt>
        <dd>{formatCount(Object.entries(totals.by_outcome).reduce((n, [k, v]) => (k === 'success' || k === 'video_completed' ? n : n + v), 0))}</dd>
      </div>
    </dl>
  );
}
