import { usdOfNano } from '../../domain/tracing/prices.ts';
import type { ActivityTotals, SessionActivity } from '../../domain/tracing/queries-sessions.ts';
import type { SpanTreeNode } from '../../domain/tracing/queries-tree.ts';
import type { StoredSpan } from '../../domain/tracing/span.ts';
import type { TraceSummary } from '../../domain/tracing/trace-summary.ts';
import type { SessionTrace, SpanNodeAnswer, SpanOutlineAnswer, TraceItem } from './schemas.ts';
import type { Turn, TurnSide } from './sessions-store.ts';
import type { FullSpan, OutlineSpan } from './spans-store.ts';
import type { ListedTrace } from './traces-store.ts';

// Domain values → the query surface's wire shapes (api/queries/schemas.ts), snake_case. The list
// and the single trace share `traceItem`, so a trace reads the same in both.

/** An instant in nanoseconds as ISO 8601, millisecond precision. */
const iso = (nanos: bigint) => new Date(Number(nanos / 1_000_000n)).toISOString();

const durationMs = (start: bigint, end: bigint) => (end > start ? Number(end - start) / 1e6 : 0);

/** Millisecond precision for people; the exact nanoseconds travel beside it as text. */
function times(start: bigint, end: bigint) {
  return {
    start_time: iso(start),
    end_time: iso(end),
    start_time_unix_nano: start.toString(),
    end_time_unix_nano: end.toString(),
    duration_ms: durationMs(start, end),
  };
}

export function traceItem(summary: TraceSummary, models: readonly string[]): TraceItem {
  return {
    trace_id: summary.traceId,
    root_span_name: summary.rootSpanName,
    ...times(summary.startTimeUnixNano, summary.endTimeUnixNano),
    span_count: summary.spanCount,
    error_count: summary.errorCount,
    input_tokens: summary.inputTokens,
    output_tokens: summary.outputTokens,
    total_cost_usd: usdOrNull(summary.costNanoUsd),
    session_id: summary.sessionId,
    user_id: summary.userId,
    service: summary.serviceName,
    environment: summary.environment,
    models: [...models],
  };
}

/** Nano-USD as dollars; no cost stays none. */
export function usdOrNull(nanoUsd: number | null): number | null {
  return nanoUsd === null ? null : usdOfNano(nanoUsd);
}

/** The distinct models of a trace's spans in byte order, as the list's `arraySort` gives them. */
export function traceModels(spans: readonly StoredSpan[]): string[] {
  const models = new Set(spans.flatMap((span) => (span.model === null ? [] : [span.model])));
  return [...models].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

function spanHead(span: StoredSpan) {
  return {
    span_id: span.spanId,
    parent_span_id: span.parentSpanId === '' ? null : span.parentSpanId,
    name: span.name,
    kind: span.kind,
    otel_kind: span.otelKind,
    ...times(span.startTimeUnixNano, span.endTimeUnixNano),
    status_code: span.statusCode,
    status_message: span.statusMessage,
    model: span.model,
    input_tokens: span.inputTokens,
    output_tokens: span.outputTokens,
    cached_input_tokens: span.cachedInputTokens,
    reasoning_tokens: span.reasoningTokens,
    cost_usd: usdOrNull(span.costNanoUsd),
    session_id: span.sessionId,
    user_id: span.userId,
    service: span.serviceName,
    environment: span.environment,
    input_truncated: span.inputTruncated,
    output_truncated: span.outputTruncated,
    redacted_count: span.redactedCount,
  };
}

export function spanNode(node: SpanTreeNode<StoredSpan>): SpanNodeAnswer {
  return { ...spanHead(node), children: node.children.map(spanNode) };
}

export function spanOutlineNode(node: SpanTreeNode<OutlineSpan>): SpanOutlineAnswer {
  const { startTimeUnixNano: start, endTimeUnixNano: end } = node;
  return {
    span_id: node.spanId,
    name: node.name,
    kind: node.kind,
    start_time_unix_nano: start.toString(),
    end_time_unix_nano: end.toString(),
    duration_ms: durationMs(start, end),
    status_code: node.statusCode,
    model: node.model,
    children: node.children.map(spanOutlineNode),
  };
}

/** Stored JSON text back to JSON; text that is not JSON (never written by us) is shown as is. */
function parsed(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const asObject = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

export function spanDetail({ span, traceFirstReceivedAt }: FullSpan) {
  return {
    trace_id: span.traceId,
    ...spanHead(span),
    trace_first_received_at: traceFirstReceivedAt.toISOString(),
    input: parsed(span.input),
    output: parsed(span.output),
    attributes: asObject(parsed(span.attributes)),
    events: asArray(parsed(span.events)),
    links: asArray(parsed(span.links)),
    resource_attributes: asObject(parsed(span.resourceAttributes)),
    scope_name: span.scopeName,
    scope_version: span.scopeVersion,
  };
}

function activity(totals: ActivityTotals) {
  return {
    trace_count: totals.traceCount,
    error_count: totals.errorCount,
    input_tokens: totals.inputTokens,
    output_tokens: totals.outputTokens,
    total_cost_usd: usdOrNull(totals.costNanoUsd),
  };
}

function turnSide(side: TurnSide | null) {
  if (side === null) return null;
  return {
    span_id: side.spanId,
    source: side.source,
    content: parsed(side.content),
    truncated: side.truncated,
  };
}

/** A trace of a session: the trace as the list shows it, and its turn of the conversation. */
export function sessionTrace(trace: ListedTrace, turn: Turn | undefined): SessionTrace {
  return {
    ...traceItem(trace.summary, trace.models),
    input: turnSide(turn?.input ?? null),
    output: turnSide(turn?.output ?? null),
  };
}

export function sessionData(
  sessionId: string,
  totals: ActivityTotals,
  userIds: string[],
  traces: SessionTrace[],
) {
  return {
    session_id: sessionId,
    first_time: iso(totals.firstStartUnixNano),
    last_time: iso(totals.lastEndUnixNano),
    ...activity(totals),
    user_ids: userIds,
    traces,
  };
}

export function userSession(session: SessionActivity) {
  return {
    session_id: session.sessionId,
    first_time: iso(session.firstStartUnixNano),
    last_time: iso(session.lastEndUnixNano),
    ...activity(session),
  };
}

export function userData(
  userId: string,
  totals: ActivityTotals,
  sessionCount: number,
  sessions: SessionActivity[],
  latest: ListedTrace[],
) {
  return {
    user_id: userId,
    first_seen: iso(totals.firstStartUnixNano),
    last_seen: iso(totals.lastEndUnixNano),
    ...activity(totals),
    session_count: sessionCount,
    sessions: sessions.map(userSession),
    latest_traces: latest.map((trace) => traceItem(trace.summary, trace.models)),
  };
}
