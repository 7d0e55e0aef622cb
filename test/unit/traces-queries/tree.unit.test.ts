import { describe, expect, it } from 'vitest';
import { buildSpanTree, type SpanTreeNode, type TreeSpan } from '../../../domain/tracing/queries-tree.ts';

const span = (spanId: string, parentSpanId: string, start: number): TreeSpan => ({
  spanId,
  parentSpanId,
  startTimeUnixNano: BigInt(start),
});

/** The tree as `id(children…)`, compact enough to read in a table. */
function shape(nodes: SpanTreeNode<TreeSpan>[]): string {
  return nodes
    .map((node) => (node.children.length ? `${node.spanId}(${shape(node.children)})` : node.spanId))
    .join(' ');
}

describe('span tree', () => {
  it.each([
    ['no spans', [], ''],
    ['a root alone', [span('r', '', 1)], 'r'],
    [
      'children under parents, siblings by start',
      [span('t2', 'a', 30), span('r', '', 1), span('a', 'r', 10), span('t1', 'a', 20), span('g', 'r', 5)],
      'r(g a(t1 t2))',
    ],
    [
      'siblings starting together by span id',
      [span('r', '', 1), span('b', 'r', 5), span('a', 'r', 5)],
      'r(a b)',
    ],
    [
      'an orphan (parent not received) at the top level, by start',
      [span('r', '', 10), span('o', 'missing', 5), span('c', 'o', 6)],
      'o(c) r',
    ],
    ['several roots', [span('r2', '', 20), span('r1', '', 10)], 'r1 r2'],
    ['a span that is its own parent', [span('s', 's', 1)], 's'],
    ['a parent cycle, broken at its earliest span', [span('x', 'y', 2), span('y', 'x', 1)], 'y(x)'],
  ])('%s', (_, spans, expected) => {
    const tree = buildSpanTree(spans);
    expect(shape(tree)).toBe(expected);
  });

  it('shows every span exactly once', () => {
    const spans = Array.from({ length: 200 }, (_, i) =>
      span(`s${i}`, i === 0 ? '' : i % 7 === 0 ? `gone${i}` : `s${Math.floor(i / 3)}`, i),
    );
    const seen: string[] = [];
    const walk = (nodes: SpanTreeNode<TreeSpan>[]) => {
      for (const node of nodes) {
        seen.push(node.spanId);
        walk(node.children);
      }
    };
    walk(buildSpanTree(spans));
    expect(seen.sort()).toEqual(spans.map((s) => s.spanId).sort());
  });
});
