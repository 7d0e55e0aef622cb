// A session's and a user's values (GET /api/sessions/:sessionId, /api/users/:userId), added up
// from their traces: a trace belongs to the session and the user its trace-level values name (001,
// "Trace-level values"), so a trace counts once, in one session and for one user. The store reads
// the traces (api/queries/sessions-store.ts); these pure functions add them up and page them.

import type { SessionCursor, TraceCursor } from './queries-cursor.ts';
import type { TraceSummary } from './trace-summary.ts';

export interface ActivityTotals {
  traceCount: number;
  /** The earliest start and the latest end over the traces. */
  firstStartUnixNano: bigint;
  lastEndUnixNano: bigint;
  inputTokens: number;
  outputTokens: number;
  /** Nano-USD over the traces that have a cost; null when none has one, never 0 for want of one. */
  costNanoUsd: number | null;
  /** Error spans (status code 2) over the traces. */
  errorCount: number;
}

export function totalsOf(traces: readonly TraceSummary[]): ActivityTotals {
  const costs = traces.flatMap((trace) => (trace.costNanoUsd === null ? [] : [trace.costNanoUsd]));
  return {
    traceCount: traces.length,
    firstStartUnixNano: extreme(
      traces.map((trace) => trace.startTimeUnixNano),
      (a, b) => a < b,
    ),
    lastEndUnixNano: extreme(
      traces.map((trace) => trace.endTimeUnixNano),
      (a, b) => a > b,
    ),
    inputTokens: sum(traces.map((trace) => trace.inputTokens)),
    outputTokens: sum(traces.map((trace) => trace.outputTokens)),
    costNanoUsd: costs.length === 0 ? null : sum(costs),
    errorCount: sum(traces.map((trace) => trace.errorCount)),
  };
}

/** The distinct values the traces have for their session or user, none left out as null, sorted. */
export function valuesOf(traces: readonly TraceSummary[], value: 'sessionId' | 'userId'): string[] {
  const values = new Set(traces.flatMap((trace) => (trace[value] === null ? [] : [trace[value]])));
  return [...values].sort(byText);
}

export interface Page<T> {
  items: T[];
  /** Another page follows this one. */
  more: boolean;
}

/** Something read with a trace's values. */
export interface WithSummary {
  summary: TraceSummary;
}

/** (start, trace id), the order the trace list's cursor names a trace by. */
function byStart(a: TraceSummary, b: TraceSummary): number {
  if (a.startTimeUnixNano !== b.startTimeUnixNano) return a.startTimeUnixNano < b.startTimeUnixNano ? -1 : 1;
  return byText(a.traceId, b.traceId);
}

/**
 * A session's traces in the order they started (a conversation, read from its first turn), the
 * `limit` after the trace the cursor names: a trace arriving meanwhile neither repeats nor hides one.
 */
export function tracesAfter<T extends WithSummary>(
  traces: readonly T[],
  cursor: TraceCursor | undefined,
  limit: number,
): Page<T> {
  const after = [...traces]
    .sort((a, b) => byStart(a.summary, b.summary))
    .filter(
      (trace) =>
        !cursor ||
        trace.summary.startTimeUnixNano > cursor.startTimeUnixNano ||
        (trace.summary.startTimeUnixNano === cursor.startTimeUnixNano &&
          trace.summary.traceId > cursor.traceId),
    );
  return { items: after.slice(0, limit), more: after.length > limit };
}

/** The `count` newest traces, newest first, as the trace list shows them. */
export function newestTraces<T extends WithSummary>(traces: readonly T[], count: number): T[] {
  return [...traces].sort((a, b) => byStart(b.summary, a.summary)).slice(0, count);
}

export interface SessionActivity extends ActivityTotals {
  sessionId: string;
}

/** Newest activity first (the latest end), then by session id. */
function byActivity(a: SessionActivity, b: SessionActivity): number {
  if (a.lastEndUnixNano !== b.lastEndUnixNano) return a.lastEndUnixNano > b.lastEndUnixNano ? -1 : 1;
  return byText(a.sessionId, b.sessionId);
}

/** The sessions of the traces, each with the values of those of its traces given; newest activity first. */
export function sessionsOf(traces: readonly TraceSummary[]): SessionActivity[] {
  const bySession = new Map<string, TraceSummary[]>();
  for (const trace of traces) {
    if (trace.sessionId === null) continue;
    const same = bySession.get(trace.sessionId);
    if (same) same.push(trace);
    else bySession.set(trace.sessionId, [trace]);
  }
  return [...bySession].map(([sessionId, own]) => ({ sessionId, ...totalsOf(own) })).sort(byActivity);
}

/** The `limit` sessions after the one the cursor names, newest activity first. */
export function sessionsAfter(
  sessions: readonly SessionActivity[],
  cursor: SessionCursor | undefined,
  limit: number,
): Page<SessionActivity> {
  const after = [...sessions]
    .sort(byActivity)
    .filter(
      (session) =>
        !cursor ||
        session.lastEndUnixNano < cursor.lastEndUnixNano ||
        (session.lastEndUnixNano === cursor.lastEndUnixNano && session.sessionId > cursor.sessionId),
    );
  return { items: after.slice(0, limit), more: after.length > limit };
}

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function extreme(values: readonly bigint[], beats: (a: bigint, b: bigint) => boolean): bigint {
  return values.reduce((best, value) => (beats(value, best) ? value : best), values[0] ?? 0n);
}
