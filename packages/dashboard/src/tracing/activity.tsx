import { count, none, usd } from '../format.ts';

// What the session and user pages show of their traces' figures, in one wording.

/** A cost: none (muted, as a missing session is) when no generation of it has a price. */
export function Cost({ amount }: { amount: number | null }) {
  if (amount === null) return <span className="muted">{none}</span>;
  return <>{usd(amount)}</>;
}

/** Spans with status code 2, said as a count of failures. */
export const failedSpans = (spans: number) => `${count(spans)} failed span${spans === 1 ? '' : 's'}`;
