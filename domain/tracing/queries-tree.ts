// A trace's spans as a tree (GET /api/traces/:traceId): children nested under their parent by
// `parent_span_id`, siblings by start time then span id. A span whose parent is missing (not
// received yet, or never sent) is shown at the top level beside the root, and so is a span caught
// in a parent cycle, so every span appears exactly once.

export interface TreeSpan {
  spanId: string;
  parentSpanId: string;
  startTimeUnixNano: bigint;
}

export type SpanTreeNode<S extends TreeSpan> = S & { children: SpanTreeNode<S>[] };

export function buildSpanTree<S extends TreeSpan>(spans: readonly S[]): SpanTreeNode<S>[] {
  const ordered = [...spans].sort(byStartThenId);
  const byId = new Map(ordered.map((span) => [span.spanId, span]));
  const childrenOf = new Map<string, S[]>();
  for (const span of ordered) {
    if (isTopLevel(span, byId)) continue;
    const siblings = childrenOf.get(span.parentSpanId);
    if (siblings) siblings.push(span);
    else childrenOf.set(span.parentSpanId, [span]);
  }
  const placed = new Set<string>();
  const grow = (span: S): SpanTreeNode<S> => {
    placed.add(span.spanId);
    const children = (childrenOf.get(span.spanId) ?? []).filter((child) => !placed.has(child.spanId));
    return { ...span, children: children.map(grow) };
  };
  const top = ordered.filter((span) => isTopLevel(span, byId)).map(grow);
  // Whatever is left hangs off a cycle: its first span (by start) becomes a top-level span.
  for (const span of ordered) if (!placed.has(span.spanId)) top.push(grow(span));
  return top.sort(byStartThenId);
}

function isTopLevel(span: TreeSpan, byId: ReadonlyMap<string, TreeSpan>): boolean {
  return span.parentSpanId === '' || span.parentSpanId === span.spanId || !byId.has(span.parentSpanId);
}

function byStartThenId(a: TreeSpan, b: TreeSpan): number {
  if (a.startTimeUnixNano !== b.startTimeUnixNano) return a.startTimeUnixNano < b.startTimeUnixNano ? -1 : 1;
  return a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0;
}
