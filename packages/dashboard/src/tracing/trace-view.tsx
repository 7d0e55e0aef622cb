import { defaultRangeExtractor, type Range, useVirtualizer } from '@tanstack/react-virtual';
import {
  type KeyboardEvent,
  memo,
  useCallback,
  useEffect,
  useId,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { Facts, Loaded, Page, When } from '../components.tsx';
import { count, duration, usd } from '../format.ts';
import { orgPath } from '../paths.ts';
import { useOrg } from '../shell.tsx';
import { useTrace } from './queries.ts';
import { SpanPanel } from './span-panel.tsx';
import { ancestorIds, hasChildren, type SpanRow, shownRows, spanRows } from './span-rows.ts';
import { markedParts, matchingRows, stepMatch } from './span-search.ts';

// One trace: its totals, then its spans as a tree beside their timeline (a waterfall), one row per
// span so each bar sits next to its name; choosing a span (`?span=` in the address) opens its
// panel with the messages, tool calls and results.
//
// A trace holds up to 10,000 spans (001, Limits), so the rows are a treegrid that puts in the page
// only the rows in view (and the one holding the keyboard's tab stop): every row is one height.
// The arrow keys, Page Up/Down, Home and End move through every row, scrolling it into view; Left
// and Right collapse and expand a span's subtree. The search box marks the spans whose name,
// model or kind holds its text, and steps through them, each selected in turn.

/** Every row's height in pixels: the virtualizer places row n at n times this. */
const rowHeight = 36;
const estimateSize = () => rowHeight;

type SelectedBy = 'row' | 'search';

export function TracePage() {
  const org = useOrg();
  const traceId = useParams().traceId ?? '';
  const [search, setSearch] = useSearchParams();
  const selected = search.get('span');
  // A span chosen from its row moves the focus to its panel; one reached by the search leaves it
  // in the search, for the next match.
  const [panelFocus, setPanelFocus] = useState(true);
  const trace = useTrace(org.id, traceId);
  const rows = useMemo(() => (trace.data ? spanRows(trace.data.spans) : []), [trace.data]);
  const title = trace.data?.root_span_name ?? `Trace ${traceId.slice(0, 12)}`;
  const select = useCallback(
    (spanId: string | null, by: SelectedBy) => {
      setPanelFocus(by === 'row');
      setSearch(spanId ? { span: spanId } : {}, { replace: by === 'search' });
    },
    [setSearch],
  );
  return (
    <Page title={title}>
      <p>
        <Link to={orgPath(org.id, '/tracing')}>Back to the traces</Link>
      </p>
      <Loaded query={trace} what="the trace">
        {(data) => (
          <>
            <Facts
              label="The trace"
              facts={[
                ['Trace id', <code key="id">{data.trace_id}</code>],
                ['Started', <When key="start" iso={data.start_time} />],
                ['Duration', duration(data.duration_ms)],
                ['Spans', `${count(data.span_count)} (${count(data.error_count)} failed)`],
                ['Tokens', `${count(data.input_tokens)} in, ${count(data.output_tokens)} out`],
                ['Cost', usd(data.total_cost_usd)],
                ['Service', data.service ?? 'none'],
                ['Session', data.session_id ?? 'none'],
                ['User', data.user_id ?? 'none'],
              ]}
            />
            <div className="trace-layout">
              <SpanWaterfall rows={rows} selected={selected} totalMs={data.duration_ms} onSelect={select} />
              {selected && (
                <SpanPanel
                  orgId={org.id}
                  traceId={traceId}
                  spanId={selected}
                  takeFocus={panelFocus}
                  onClose={() => setSearch({})}
                />
              )}
            </div>
          </>
        )}
      </Loaded>
    </Page>
  );
}

function SpanWaterfall({
  rows,
  selected,
  totalMs,
  onSelect,
}: {
  rows: SpanRow[];
  selected: string | null;
  totalMs: number;
  onSelect: (spanId: string | null, by: SelectedBy) => void;
}) {
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(() => new Set());
  /** The span whose row holds the tab stop (the first row's when none). */
  const [activeId, setActiveId] = useState<string | null>(selected);
  const [text, setText] = useState('');
  const scroller = useRef<HTMLDivElement>(null);
  const grid = useRef<HTMLTableElement>(null);
  /** A span to scroll into view once it shows (the one in the address when the page opens). */
  const pendingScroll = useRef<string | null>(selected);
  /** A span whose row takes the focus once it is in the page. */
  const pendingFocus = useRef<string | null>(null);

  const indexOf = useMemo(() => new Map(rows.map((row, index) => [row.span.span_id, index])), [rows]);
  const shown = useMemo(() => shownRows(rows, collapsed), [rows, collapsed]);
  const positionOf = useMemo(() => new Map(shown.map((index, position) => [index, position])), [shown]);
  const matches = useMemo(() => matchingRows(rows, text), [rows, text]);
  const matched = useMemo(() => new Set(matches), [matches]);

  /** Where a span's row is among the rows shown: its own, or its nearest shown ancestor's. */
  const positionNear = useCallback(
    (spanId: string | null) => {
      let index = spanId === null ? undefined : indexOf.get(spanId);
      while (index !== undefined && index >= 0) {
        const position = positionOf.get(index);
        if (position !== undefined) return position;
        index = rows[index]!.parent;
      }
      return undefined;
    },
    [indexOf, positionOf, rows],
  );
  const activePosition = positionNear(activeId) ?? 0;

  const getItemKey = useCallback((position: number) => rows[shown[position]!]!.span.span_id, [rows, shown]);
  // The rows in view, and the tab stop's wherever it is, so Tab always reaches the grid.
  const rangeExtractor = useCallback(
    (range: Range) => {
      const positions = defaultRangeExtractor(range);
      if (activePosition >= range.count || positions.includes(activePosition)) return positions;
      return [...positions, activePosition].sort((a, b) => a - b);
    },
    [activePosition],
  );
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scroller.current,
    estimateSize,
    // The header row, sticky at the top of the scrolling box, comes before the first row.
    scrollMargin: rowHeight,
    scrollPaddingStart: rowHeight,
    overscan: 8,
    getItemKey,
    rangeExtractor,
  });

  useLayoutEffect(() => {
    const spanId = pendingScroll.current;
    if (spanId === null) return;
    const position = positionOf.get(indexOf.get(spanId) ?? -1);
    if (position !== undefined) virtualizer.scrollToIndex(position, { align: 'center' });
    pendingScroll.current = null;
  });
  useEffect(() => {
    const spanId = pendingFocus.current;
    if (spanId === null) return;
    const button = grid.current?.querySelector<HTMLElement>(`[data-span-id="${spanId}"] .span-name`);
    if (!button) return;
    button.focus({ preventScroll: true });
    pendingFocus.current = null;
  });

  const toggle = useCallback(
    (index: number) => {
      const spanId = rows[index]!.span.span_id;
      setCollapsed((before) => {
        const after = new Set(before);
        if (!after.delete(spanId)) after.add(spanId);
        return after;
      });
      setActiveId(spanId);
    },
    [rows],
  );
  const selectRow = useCallback(
    (index: number) => {
      const spanId = rows[index]!.span.span_id;
      setActiveId(spanId);
      onSelect(spanId === selected ? null : spanId, 'row');
    },
    [rows, selected, onSelect],
  );
  const focusRow = useCallback(
    (to: number) => {
      const position = Math.max(0, Math.min(shown.length - 1, to));
      const index = shown[position];
      if (index === undefined) return;
      const spanId = rows[index]!.span.span_id;
      setActiveId(spanId);
      pendingFocus.current = spanId;
      virtualizer.scrollToIndex(position, { align: 'auto' });
    },
    [rows, shown, virtualizer],
  );
  const onFocusRow = useCallback((index: number) => setActiveId(rows[index]!.span.span_id), [rows]);

  function onKeyDown(event: KeyboardEvent<HTMLTableElement>) {
    if (!(event.target instanceof HTMLElement) || !event.target.closest('.span-row')) return;
    const index = shown[activePosition];
    if (index === undefined) return;
    const row = rows[index]!;
    const expandable = hasChildren(row, index);
    const isCollapsed = collapsed.has(row.span.span_id);
    const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? 0) / rowHeight) - 1);
    let to: number | undefined;
    switch (event.key) {
      case 'ArrowDown':
        to = activePosition + 1;
        break;
      case 'ArrowUp':
        to = activePosition - 1;
        break;
      case 'PageDown':
        to = activePosition + page;
        break;
      case 'PageUp':
        to = activePosition - page;
        break;
      case 'Home':
        to = 0;
        break;
      case 'End':
        to = shown.length - 1;
        break;
      // Right expands a collapsed span, then goes to its first child; Left collapses an expanded
      // one, then goes to its parent.
      case 'ArrowRight':
        if (expandable && isCollapsed) toggle(index);
        else if (expandable) to = activePosition + 1;
        break;
      case 'ArrowLeft':
        if (expandable && !isCollapsed) toggle(index);
        else if (row.parent >= 0) to = positionOf.get(row.parent);
        break;
      default:
        return;
    }
    event.preventDefault();
    if (to !== undefined) focusRow(to);
  }

  /** Selects the next or previous match, showing its subtree's ancestors and scrolling to it. */
  function step(direction: 1 | -1) {
    const from = selected === null ? undefined : indexOf.get(selected);
    const index = stepMatch(matches, from, direction);
    if (index === undefined) return;
    const spanId = rows[index]!.span.span_id;
    const hidden = ancestorIds(rows, index).filter((id) => collapsed.has(id));
    if (hidden.length > 0)
      setCollapsed((before) => new Set([...before].filter((id) => !hidden.includes(id))));
    setActiveId(spanId);
    pendingScroll.current = spanId;
    onSelect(spanId, 'search');
  }

  const selectedIndex = selected === null ? undefined : indexOf.get(selected);
  const current = selectedIndex === undefined ? -1 : matches.indexOf(selectedIndex);
  return (
    <section aria-labelledby="spans-title" className="waterfall">
      <h2 id="spans-title">Spans</h2>
      <SpanSearch
        text={text}
        onText={setText}
        found={text.trim() === '' ? undefined : matches.length}
        total={rows.length}
        current={current >= 0 ? { at: current + 1, name: rows[selectedIndex!]!.span.name } : undefined}
        onStep={step}
      />
      <div className="span-grid-scroll" ref={scroller}>
        <table
          // biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: a treegrid is a table whose rows expand, moved through with the arrow keys (WAI-ARIA's treegrid pattern)
          role="treegrid"
          aria-labelledby="spans-title"
          aria-rowcount={shown.length + 1}
          className="span-grid"
          ref={grid}
          onKeyDown={onKeyDown}
        >
          <thead>
            <tr aria-rowindex={1} style={{ height: rowHeight }}>
              <th scope="col">Span tree</th>
              <th scope="col">
                Timeline <span className="muted">(0 to {duration(totalMs)})</span>
              </th>
            </tr>
          </thead>
          <tbody style={{ height: virtualizer.getTotalSize() }}>
            {virtualizer.getVirtualItems().map((item) => {
              const index = shown[item.index]!;
              const row = rows[index]!;
              const spanId = row.span.span_id;
              return (
                <SpanRowView
                  key={item.key as string}
                  row={row}
                  index={index}
                  position={item.index}
                  top={item.start - rowHeight}
                  selected={spanId === selected}
                  active={item.index === activePosition}
                  expanded={hasChildren(row, index) ? !collapsed.has(spanId) : undefined}
                  match={matched.has(index)}
                  text={text}
                  onSelect={selectRow}
                  onToggle={toggle}
                  onFocusRow={onFocusRow}
                />
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** The search box: how many spans match, and the way to each in turn (Enter, Shift+Enter too). */
function SpanSearch({
  text,
  onText,
  found,
  total,
  current,
  onStep,
}: {
  text: string;
  onText: (text: string) => void;
  /** How many spans match; undefined when nothing is searched for. */
  found: number | undefined;
  total: number;
  /** The selected span when it is a match: its place among them, and its name. */
  current: { at: number; name: string } | undefined;
  onStep: (direction: 1 | -1) => void;
}) {
  const id = useId();
  const none = !found;
  return (
    <search className="span-search" aria-label="This trace's spans">
      <label htmlFor={id}>Find spans by name, model or kind</label>
      <div className="span-search-row">
        <input
          id={id}
          type="search"
          value={text}
          spellCheck={false}
          autoComplete="off"
          aria-describedby={`${id}-status`}
          onChange={(event) => onText(event.target.value)}
          onKeyDown={(event) => {
            if (event.key !== 'Enter') return;
            event.preventDefault();
            onStep(event.shiftKey ? -1 : 1);
          }}
        />
        <button type="button" disabled={none} onClick={() => onStep(-1)}>
          Previous match
        </button>
        <button type="button" disabled={none} onClick={() => onStep(1)}>
          Next match
        </button>
      </div>
      <p id={`${id}-status`} role="status" className="muted span-search-status">
        {found !== undefined && `${count(found)} of ${count(total)} spans match`}
        {current && `; match ${count(current.at)} is selected: ${current.name}`}
      </p>
    </search>
  );
}

const SpanRowView = memo(function SpanRowView({
  row,
  index,
  position,
  top,
  selected,
  active,
  expanded,
  match,
  text,
  onSelect,
  onToggle,
  onFocusRow,
}: {
  row: SpanRow;
  /** The row's index among all the rows, and its place among those shown. */
  index: number;
  position: number;
  /** Where the row sits in the table's body, in pixels. */
  top: number;
  selected: boolean;
  /** Whether the row holds the grid's tab stop. */
  active: boolean;
  /** Undefined for a span without children. */
  expanded: boolean | undefined;
  match: boolean;
  text: string;
  onSelect: (index: number) => void;
  onToggle: (index: number) => void;
  onFocusRow: (index: number) => void;
}) {
  const { span } = row;
  const failed = span.status_code === 2;
  const parts = match ? markedParts(span.name, text) : undefined;
  const end = row.offset + row.width;
  // The label beside its bar where there is room, after it or before it; else inside the bar,
  // which then fills most of the timeline.
  const label =
    end <= 0.7
      ? { className: 'bar-label', style: { left: `calc(${end * 100}% + 0.35rem)` } }
      : row.offset >= 0.3
        ? { className: 'bar-label', style: { right: `calc(${(1 - row.offset) * 100}% + 0.35rem)` } }
        : { className: 'bar-label inside', style: { left: `calc(${row.offset * 100}% + 0.35rem)` } };
  return (
    <tr
      aria-rowindex={position + 2}
      aria-level={row.depth + 1}
      aria-expanded={expanded}
      data-span-id={span.span_id}
      className={`span-row${selected ? ' selected' : ''}${match ? ' match' : ''}`}
      style={{ height: rowHeight, transform: `translateY(${top}px)` }}
    >
      <th scope="row" style={{ paddingLeft: `${0.5 + row.depth * 1.25}rem` }}>
        {expanded === undefined ? (
          <span className="toggle-space" />
        ) : (
          <button
            type="button"
            className="toggle"
            tabIndex={-1}
            aria-expanded={expanded}
            aria-label={`${expanded ? 'Collapse' : 'Expand'} ${span.name}`}
            onClick={() => onToggle(index)}
          >
            <span aria-hidden="true">{expanded ? '▾' : '▸'}</span>
          </button>
        )}
        <button
          type="button"
          className="span-name"
          tabIndex={active ? 0 : -1}
          aria-pressed={selected}
          aria-label={`${span.name}, ${span.kind}${failed ? ', failed' : ''}, depth ${row.depth + 1}${match ? ', matches the search' : ''}`}
          title={span.name}
          onClick={() => onSelect(index)}
          onFocus={() => onFocusRow(index)}
        >
          {parts ? (
            <>
              {parts[0]}
              <mark>{parts[1]}</mark>
              {parts[2]}
            </>
          ) : (
            span.name
          )}
        </button>
        <span className={`kind kind-${span.kind}`}>{span.kind}</span>
        {failed && <span className="error-badge">failed</span>}
      </th>
      <td className="timeline-cell">
        <div className="track">
          <div
            className={`bar kind-${span.kind}${failed ? ' failed' : ''}`}
            style={{ left: `${row.offset * 100}%`, width: `max(2px, ${row.width * 100}%)` }}
            title={`starts at ${duration(row.startsAtMs)}, lasts ${duration(span.duration_ms)}`}
          />
          <span className={label.className} style={label.style}>
            +{duration(row.startsAtMs)} · {duration(span.duration_ms)}
          </span>
        </div>
      </td>
    </tr>
  );
});
