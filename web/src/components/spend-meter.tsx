import { formatUsd } from '../lib/format';

/**
 * Spend against a budget (issue 21): the numbers in text, and a meter beside them that exposes
 * the same figures to assistive technology; colour is never the only sign (over budget says so).
 */
export function SpendMeter({ spent, budget, name }: { spent: number; budget: number | null; name: string }) {
  if (budget === null) return <span>{formatUsd(spent)} · no budget</span>;
  const isOver = spent >= budget;
  return (
    <span className="spend">
      <span>
        {formatUsd(spent)} of {formatUsd(budget)}
        {isOver && <strong className="warning"> · budget used up</strong>}
      </span>
      <meter min={0} max={budget || 1} low={budget * 0.75} high={budget * 0.9} optimum={0} value={Math.min(spent, budget)} aria-label={`Spend of ${name} against its budget`} />
    </span>
  );
}
