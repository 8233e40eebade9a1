import { formatCount, formatUsd, userBudgetWords } from '../../lib/format';
import type { ApiKey, User } from '../../lib/types';

/** What the listed keys spent, against the person's allowance (their budget for all keys together, rate limits per key). */
export function SpendSummary({ user, keys, isOperator }: { user: User; keys: readonly ApiKey[]; isOperator: boolean }) {
  const month = keys.reduce((sum, key) => sum + key.spent_month_usd, 0);
  const total = keys.reduce((sum, key) => sum + (key.spent_usd ?? 0), 0);
  const caps = [
    user.budget_usd === null ? 'no budget cap' : `a budget of ${userBudgetWords(user.budget_usd, 'your')}`,
    user.rpm === null ? null : `${formatCount(user.rpm)} requests a minute`,
    user.tpm === null ? null : `${formatCount(user.tpm)} tokens a minute`,
  ].filter(Boolean);
  return (
    <p className="note" aria-label="Spending">
      {isOperator ? 'The keys listed' : 'Your keys listed'} spent <strong>{formatUsd(month)}</strong> this month and <strong>{formatUsd(total)}</strong> in all.
      {!isOperator && ` Your allowance: ${caps.join(', ')}.`}
    </p>
  );
}
