// A trace's own values, from "Trace-level values" (001): session, user, service and environment
// from the root span, else from the earliest span that has one (each value on its own); token
// totals over `generation` spans only, since `agent` spans repeat their inner calls' usage; their
// cost likewise, over the generations that have one (none priced: no cost, never zero).

import type { StoredSpan } from './span.ts';

export interface TraceSummary {
  traceId: string;
  sessionId: string | null;
  userId: string | null;
  serviceName: string | null;
  environment: string | null;
  inputTokens: number;
  outputTokens: number;
  /** Nano-USD over the generation spans with a cost; null when none has one. */
  costNanoUsd: number | null;
  /** Earliest start and latest end over the spans; 0 for no spans. */
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  spanCount: number;
  /** Null while the root span (the one without a parent) has not arrived. */
  rootSpanName: string | null;
  /** Spans whose status code is 2 (error). */
  errorCount: number;
}

type TraceValue = 'sessionId' | 'userId' | 'serviceName' | 'environment';

export function summarizeTrace(spans: readonly StoredSpan[]): TraceSummary {
  const ordered = byTraceValuePrecedence(spans);
  const generations = spans.filter((span) => span.kind === 'generation');
  return {
    traceId: spans[0]?.traceId ?? '',
    sessionId: firstValue(ordered, 'sessionId'),
    userId: firstValue(ordered, 'userId'),
    serviceName: firstValue(ordered, 'serviceName'),
    environment: firstValue(ordered, 'environment'),
    inputTokens: sum(generations.map((span) => span.inputTokens ?? 0)),
    outputTokens: sum(generations.map((span) => span.outputTokens ?? 0)),
    costNanoUsd: totalCost(generations),
    startTimeUnixNano: extreme(
      spans.map((span) => span.startTimeUnixNano),
      (a, b) => a < b,
    ),
    endTimeUnixNano: extreme(
      spans.map((span) => span.endTimeUnixNano),
      (a, b) => a > b,
    ),
    spanCount: spans.length,
    rootSpanName: ordered.find(isRoot)?.name ?? null,
    errorCount: spans.filter((span) => span.statusCode === 2).length,
  };
}

function isRoot(span: StoredSpan): boolean {
  return span.parentSpanId === '';
}

/** Root spans first, then by start time; spans starting together keep their order. */
function byTraceValuePrecedence(spans: readonly StoredSpan[]): StoredSpan[] {
  return [...spans].sort((a, b) => {
    if (isRoot(a) !== isRoot(b)) return isRoot(a) ? -1 : 1;
    return Number(a.startTimeUnixNano - b.startTimeUnixNano);
  });
}

function firstValue(ordered: readonly StoredSpan[], value: TraceValue): string | null {
  return ordered.find((span) => span[value] !== null)?.[value] ?? null;
}

function totalCost(generations: readonly StoredSpan[]): number | null {
  const costs = generations.flatMap((span) => (span.costNanoUsd === null ? [] : [span.costNanoUsd]));
  return costs.length === 0 ? null : sum(costs);
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function extreme(values: readonly bigint[], beats: (a: bigint, b: bigint) => boolean): bigint {
  return values.reduce((best, value) => (beats(value, best) ? value : best), values[0] ?? 0n);
}
