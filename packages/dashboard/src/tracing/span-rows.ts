import type { SpanOutline } from '../api/types.ts';

// A trace's span tree as the rows the trace view shows: depth-first in the API's order (children
// by start), each with its depth, its parent's row and where its subtree ends (so a collapsed
// span's descendants are skipped in one step), and its bar on the timeline as fractions of the
// trace's span. A trace holds up to 10,000 spans (001, Limits), nested as deep as its sender
// made it: the walk is a loop, not a recursion. Pure (test/data.unit.test.ts, test/span-rows.unit.test.ts).

export interface SpanRow {
  span: SpanOutline;
  depth: number;
  /** The parent's row (its index in the rows), or -1 for a top-level span. */
  parent: number;
  /** The index after this span's last descendant: its subtree is the rows from its own to here. */
  end: number;
  /** Where the bar starts and how wide it is, each 0..1 of the trace's time. */
  offset: number;
  width: number;
  /** Milliseconds from the trace's first start. */
  startsAtMs: number;
}

export function spanRows(roots: readonly SpanOutline[]): SpanRow[] {
  const flat: { span: SpanOutline; depth: number; parent: number; end: number }[] = [];
  // Depth first: a stack of the spans still to visit, each child pushed after its later siblings.
  const stack: { span: SpanOutline; depth: number; parent: number }[] = [];
  const pushChildren = (spans: readonly SpanOutline[], depth: number, parent: number) => {
    for (let index = spans.length - 1; index >= 0; index -= 1)
      stack.push({ span: spans[index]!, depth, parent });
  };
  pushChildren(roots, 0, -1);
  // The rows whose subtree is still open, innermost last: each closes when a row not below it comes.
  const open: number[] = [];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const index = flat.length;
    while (open.length > 0 && open.at(-1) !== next.parent) flat[open.pop()!]!.end = index;
    flat.push({ ...next, end: index + 1 });
    open.push(index);
    pushChildren(next.span.children, next.depth + 1, index);
  }
  for (const index of open) flat[index]!.end = flat.length;
  if (flat.length === 0) return [];
  // Numbers, not BigInt: a bar is drawn in pixels and a start shown in milliseconds, so a few
  // hundred nanoseconds of rounding at today's epoch cannot show, and parsing 20,000 BigInts is
  // most of the work of opening a trace at 001's limit.
  const starts = flat.map(({ span }) => Number(span.start_time_unix_nano));
  const ends = flat.map(({ span }) => Number(span.end_time_unix_nano));
  const first = Math.min(...starts);
  const last = Math.max(...ends);
  const total = last > first ? last - first : 1;
  return flat.map(({ span, depth, parent, end }, index) => {
    const start = starts[index]! - first;
    const length = Math.max(0, ends[index]! - starts[index]!);
    return {
      span,
      depth,
      parent,
      end,
      offset: start / total,
      width: length / total,
      startsAtMs: start / 1e6,
    };
  });
}

export const hasChildren = (row: SpanRow, index: number) => row.end > index + 1;

/**
 * The rows shown when the spans in `collapsed` (span ids) are collapsed: their indices in `rows`,
 * each collapsed span shown and its subtree skipped.
 */
export function shownRows(rows: readonly SpanRow[], collapsed: ReadonlySet<string>): number[] {
  if (collapsed.size === 0) return rows.map((_, index) => index);
  const shown: number[] = [];
  for (let index = 0; index < rows.length; ) {
    const row = rows[index]!;
    shown.push(index);
    index = collapsed.has(row.span.span_id) ? row.end : index + 1;
  }
  return shown;
}

/** The span ids of a row's ancestors, its parent first: what must be expanded for it to show. */
export function ancestorIds(rows: readonly SpanRow[], index: number): string[] {
  const ids: string[] = [];
  for (let parent = rows[index]?.parent ?? -1; parent >= 0; parent = rows[parent]!.parent)
    ids.push(rows[parent]!.span.span_id);
  return ids;
}
