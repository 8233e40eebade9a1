import { formatUsd } from '../lib/format';

/**
 * Spend against a budget (issue 21): the numbers in text, and a meter beside them that exposes
 * the same figures to assistive technology; colour is never the only sign (over budget says so).
 */
export function SpendMeter({ spent, budget, held, name }: { spent: number; budget: number | null; held?: number | undefined; name: string }) {
  if (budget === null) return <span>{formatUsd(spent)} · no budget</span>;
  const isOver = spent >= budget;
  // Beyond the budget: the vendor reported more than the request's estimate held (issue 35).
  const overshoot = spent - budget;
  return (
    <span className="spend">
      <span>
        {formatUsd(spent)} of {formatUsd(budget)}
        {isOver && <strong className="warning"> · budget used up</strong>}
      </span>
      {overshoot > 0 && (
        <span className="small warning">
          overshot by {formatUsd(overshoot)} ({budget > 0 ? `${((overshoot / budget) * 100).toFixed(1)} %` : '—'}): the vendor reported more than estimated
        </span>
      )}
      {held !== undefined && held > 0 && !isOver && (
        <span className="small muted">
          {formatUsd(held)} held by requests in progress · {formatUsd(Math.max(0, budget - spent - held))} free
        </span>
      )}
      <meter min={0} max={budget || 1} low={budget * 0.75} high={budget * 0.9} optimum={0} value={Math.min(spent, budget)} aria-label={`Spend of ${name} against its budget`} />
    </span>
  );
}
