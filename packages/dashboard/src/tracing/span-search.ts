import type { SpanRow } from './span-rows.ts';

// Search within one trace: the spans whose name, model or kind holds the text, ignoring case, in
// the rows' order (the tree's, depth first), and the next or previous of them from a given row,
// round the ends. Pure (test/span-rows.unit.test.ts).

/** The text searched for, as compared: trimmed, lower case; empty when there is nothing to find. */
export const searchKey = (text: string) => text.trim().toLowerCase();

/** The indices of the rows whose span's name, model or kind holds `text`, ignoring case. */
export function matchingRows(rows: readonly SpanRow[], text: string): number[] {
  const key = searchKey(text);
  if (key === '') return [];
  const matches: number[] = [];
  rows.forEach(({ span }, index) => {
    if (
      span.name.toLowerCase().includes(key) ||
      span.kind.includes(key) ||
      span.model?.toLowerCase().includes(key)
    )
      matches.push(index);
  });
  return matches;
}

/**
 * The match after (`step` 1) or before (-1) the row `from` (the first or last when there is no
 * row to start from), going round at the ends; undefined when nothing matches.
 */
export function stepMatch(
  matches: readonly number[],
  from: number | undefined,
  step: 1 | -1,
): number | undefined {
  if (matches.length === 0) return undefined;
  if (from === undefined) return step === 1 ? matches[0] : matches.at(-1);
  // The first match after `from`, by bisection: the matches are in row order.
  let low = 0;
  let high = matches.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (matches[middle]! <= from) low = middle + 1;
    else high = middle;
  }
  if (step === 1) return matches[low % matches.length];
  // Before `from`: the match just under the first that is not below it.
  const atOrAfter = low > 0 && matches[low - 1] === from ? low - 1 : low;
  return matches[(atOrAfter - 1 + matches.length) % matches.length];
}

/** A name split around the first place it holds `text` (ignoring case), to mark it; undefined when it does not. */
export function markedParts(
  name: string,
  text: string,
): [before: string, found: string, after: string] | undefined {
  const key = searchKey(text);
  if (key === '') return undefined;
  const lower = name.toLowerCase();
  const at = lower.indexOf(key);
  // A letter whose lower case is longer (İ) would shift the places: the name is then left unmarked.
  if (at < 0 || lower.length !== name.length) return undefined;
  return [name.slice(0, at), name.slice(at, at + key.length), name.slice(at + key.length)];
}
