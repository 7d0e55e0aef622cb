import { describe, expect, it } from 'vitest';
import type { SpanOutline } from '../src/api/types.ts';
import { ancestorIds, hasChildren, shownRows, spanRows } from '../src/tracing/span-rows.ts';
import { markedParts, matchingRows, stepMatch } from '../src/tracing/span-search.ts';

// The trace page's rows (a tree of up to 10,000 spans, collapsed in parts) and its search.

const node = (
  id: string,
  children: SpanOutline[] = [],
  more: { name?: string; kind?: SpanOutline['kind']; model?: string | null } = {},
) =>
  ({
    span_id: id,
    name: more.name ?? id,
    kind: more.kind ?? 'span',
    model: more.model ?? null,
    start_time_unix_nano: '1000000000',
    end_time_unix_nano: '2000000000',
    children,
  }) as unknown as SpanOutline;

// agent
//   chat        (generation, gpt-4o)
//   tool
//     fetch
//       inner
//   answer
// other        (a second top-level span)
const tree = () => [
  node('agent', [
    node('chat', [], { name: 'chat GPT-4o', kind: 'generation', model: 'gpt-4o' }),
    node('tool', [node('fetch', [node('inner', [], { name: 'execute_tool Refund_Payment', kind: 'tool' })])]),
    node('answer'),
  ]),
  node('other'),
];
const ids = (rows: ReturnType<typeof spanRows>, indices: number[]) =>
  indices.map((index) => rows[index]!.span.span_id);

describe("a trace's rows", () => {
  it("knows each row's parent and where its subtree ends", () => {
    const rows = spanRows(tree());
    expect(rows.map((row) => [row.span.span_id, row.depth, row.parent, row.end])).toEqual([
      ['agent', 0, -1, 6],
      ['chat', 1, 0, 2],
      ['tool', 1, 0, 5],
      ['fetch', 2, 2, 5],
      ['inner', 3, 3, 5],
      ['answer', 1, 0, 6],
      ['other', 0, -1, 7],
    ]);
    expect(rows.map(hasChildren)).toEqual([true, false, true, true, false, false, false]);
  });

  it('walks a tree nested 20,000 deep without running out of stack', () => {
    let deepest = node('s19999');
    for (let depth = 19_998; depth >= 0; depth -= 1) deepest = node(`s${depth}`, [deepest]);
    const rows = spanRows([deepest]);
    expect(rows).toHaveLength(20_000);
    expect(rows.at(-1)).toMatchObject({ depth: 19_999, parent: 19_998, end: 20_000 });
    expect(rows[0]!.end).toBe(20_000);
    expect(ancestorIds(rows, 19_999)).toHaveLength(19_999);
  });

  it('shows every row until a span is collapsed, then skips its subtree, nested collapses too', () => {
    const rows = spanRows(tree());
    expect(shownRows(rows, new Set())).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(ids(rows, shownRows(rows, new Set(['tool'])))).toEqual([
      'agent',
      'chat',
      'tool',
      'answer',
      'other',
    ]);
    expect(ids(rows, shownRows(rows, new Set(['fetch', 'tool'])))).toEqual([
      'agent',
      'chat',
      'tool',
      'answer',
      'other',
    ]);
    expect(ids(rows, shownRows(rows, new Set(['agent'])))).toEqual(['agent', 'other']);
    // A leaf "collapsed" hides nothing.
    expect(shownRows(rows, new Set(['chat']))).toHaveLength(7);
  });

  it("names a row's ancestors, its parent first", () => {
    const rows = spanRows(tree());
    expect(ancestorIds(rows, 4)).toEqual(['fetch', 'tool', 'agent']);
    expect(ancestorIds(rows, 0)).toEqual([]);
  });
});

describe('search within a trace', () => {
  const rows = spanRows(tree());

  it('matches the name, model or kind, ignoring case and the spaces around', () => {
    expect(ids(rows, matchingRows(rows, 'refund_payment'))).toEqual(['inner']);
    expect(ids(rows, matchingRows(rows, '  GPT-4O '))).toEqual(['chat']);
    expect(ids(rows, matchingRows(rows, 'generation'))).toEqual(['chat']);
    expect(ids(rows, matchingRows(rows, 'TOOL'))).toEqual(['tool', 'inner']);
    expect(matchingRows(rows, 'nothing like it')).toEqual([]);
  });

  it('finds nothing for no text', () => {
    expect(matchingRows(rows, '')).toEqual([]);
    expect(matchingRows(rows, '   ')).toEqual([]);
  });

  it('steps to the next and previous match in the rows, round the ends', () => {
    const matches = [2, 5, 9];
    expect(stepMatch(matches, undefined, 1)).toBe(2);
    expect(stepMatch(matches, undefined, -1)).toBe(9);
    expect(stepMatch(matches, 2, 1)).toBe(5);
    expect(stepMatch(matches, 5, -1)).toBe(2);
    expect(stepMatch(matches, 9, 1)).toBe(2);
    expect(stepMatch(matches, 2, -1)).toBe(9);
    // From a row that is not a match: the nearest one that way.
    expect(stepMatch(matches, 6, 1)).toBe(9);
    expect(stepMatch(matches, 6, -1)).toBe(5);
    expect(stepMatch(matches, 0, -1)).toBe(9);
    expect(stepMatch(matches, 12, 1)).toBe(2);
    expect(stepMatch([4], 4, 1)).toBe(4);
    expect(stepMatch([], 3, 1)).toBeUndefined();
  });

  it('splits a name around what matched, as written', () => {
    expect(markedParts('execute_tool Refund_Payment', 'refund')).toEqual([
      'execute_tool ',
      'Refund',
      '_Payment',
    ]);
    expect(markedParts('chat', 'tool')).toBeUndefined();
    expect(markedParts('chat', ' ')).toBeUndefined();
  });
});
