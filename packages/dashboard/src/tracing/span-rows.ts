import type { SpanNode } from '../api/types.ts';

// A trace's span tree as the rows the trace view shows: depth-first in the API's order (children
// by start), each with its depth and its bar on the timeline as fractions of the trace's span.
// Times are nanosecond decimal strings, so the arithmetic is in BigInt. Pure (test/data.unit.test.ts).

export interface SpanRow {
  span: SpanNode;
  depth: number;
  /** Where the bar starts and how wide it is, each 0..1 of the trace's time. */
  offset: number;
  width: number;
  /** Milliseconds from the trace's first start. */
  startsAtMs: number;
}

export function spanRows(roots: readonly SpanNode[]): SpanRow[] {
  const flat: { span: SpanNode; depth: number }[] = [];
  const walk = (span: SpanNode, depth: number) => {
    flat.push({ span, depth });
    for (const child of span.children) walk(child, depth + 1);
  };
  for (const root of roots) walk(root, 0);
  if (flat.length === 0) return [];
  const starts = flat.map(({ span }) => BigInt(span.start_time_unix_nano));
  const ends = flat.map(({ span }) => BigInt(span.end_time_unix_nano));
  // BigInt has no Math.min and Math.max.
  let first = starts[0]!;
  let last = ends[0]!;
  for (const start of starts) if (start < first) first = start;
  for (const end of ends) if (end > last) last = end;
  const total = last > first ? Number(last - first) : 1;
  return flat.map(({ span, depth }, index) => {
    const start = Number(starts[index]! - first);
    const length = Math.max(0, Number(ends[index]! - starts[index]!));
    return { span, depth, offset: start / total, width: length / total, startsAtMs: start / 1e6 };
  });
}
