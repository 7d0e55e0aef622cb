import { describe, expect, it } from 'vitest';
import {
  newestTraces,
  sessionsAfter,
  sessionsOf,
  totalsOf,
  tracesAfter,
  valuesOf,
} from '../../../domain/tracing/queries-sessions.ts';
import type { TraceSummary } from '../../../domain/tracing/trace-summary.ts';

// A session's and a user's values from their traces' (GET /api/sessions/:id, /api/users/:id).

let ids = 0;
function trace(overrides: Partial<TraceSummary> = {}): { summary: TraceSummary } {
  ids += 1;
  return {
    summary: {
      traceId: ids.toString(16).padStart(32, '0'),
      sessionId: 'chat-1',
      userId: 'ada',
      serviceName: 'support-bot',
      environment: 'production',
      inputTokens: 100,
      outputTokens: 10,
      costNanoUsd: null,
      startTimeUnixNano: 1_000n,
      endTimeUnixNano: 2_000n,
      spanCount: 3,
      rootSpanName: 'turn',
      errorCount: 0,
      ...overrides,
    },
  };
}
const summaries = (traces: { summary: TraceSummary }[]) => traces.map((item) => item.summary);
const idsOf = (traces: { summary: TraceSummary }[]) => traces.map((item) => item.summary.traceId);

describe('totals', () => {
  it('adds tokens, costs and failures, from the earliest start to the latest end', () => {
    const traces = [
      trace({ startTimeUnixNano: 5_000n, endTimeUnixNano: 9_000n, costNanoUsd: 4_500_000, errorCount: 1 }),
      trace({ startTimeUnixNano: 1_000n, endTimeUnixNano: 3_000n, inputTokens: 20, outputTokens: 2 }),
      trace({ startTimeUnixNano: 7_000n, endTimeUnixNano: 7_500n, costNanoUsd: 500_000, errorCount: 2 }),
    ];
    expect(totalsOf(summaries(traces))).toEqual({
      traceCount: 3,
      firstStartUnixNano: 1_000n,
      lastEndUnixNano: 9_000n,
      inputTokens: 220,
      outputTokens: 22,
      costNanoUsd: 5_000_000,
      errorCount: 3,
    });
  });

  it('has no cost when no trace has one, not a cost of 0', () => {
    expect(totalsOf(summaries([trace(), trace()])).costNanoUsd).toBeNull();
    expect(totalsOf(summaries([trace({ costNanoUsd: 0 })])).costNanoUsd).toBe(0);
  });

  it('gives the distinct users or sessions, sorted, without the traces that have none', () => {
    const traces = [trace({ userId: 'zoe' }), trace({ userId: null }), trace({ userId: 'ada' }), trace()];
    expect(valuesOf(summaries(traces), 'userId')).toEqual(['ada', 'zoe']);
    expect(valuesOf(summaries([trace({ sessionId: null })]), 'sessionId')).toEqual([]);
  });
});

describe("a session's traces", () => {
  const [a, b, c, d] = [
    trace({ startTimeUnixNano: 3_000n }),
    trace({ startTimeUnixNano: 1_000n }),
    trace({ startTimeUnixNano: 3_000n }),
    trace({ startTimeUnixNano: 2_000n }),
  ] as const;
  const cursorOf = (item: { summary: TraceSummary }) => ({
    startTimeUnixNano: item.summary.startTimeUnixNano,
    traceId: item.summary.traceId,
  });

  it('are in the order they started, the trace id breaking a tie', () => {
    expect(idsOf(tracesAfter([a, b, c, d], undefined, 10).items)).toEqual(idsOf([b, d, a, c]));
  });

  it('page after the trace the cursor names, saying whether more follow', () => {
    const first = tracesAfter([a, b, c, d], undefined, 2);
    expect(idsOf(first.items)).toEqual(idsOf([b, d]));
    expect(first.more).toBe(true);
    const second = tracesAfter([a, b, c, d], cursorOf(d), 2);
    expect(idsOf(second.items)).toEqual(idsOf([a, c]));
    expect(second.more).toBe(false);
    expect(tracesAfter([a, b, c, d], cursorOf(a), 2).items).toEqual([c]);
    expect(tracesAfter([a, b, c, d], cursorOf(c), 2)).toEqual({ items: [], more: false });
  });

  it('keep their place when a trace arrives before the cursor', () => {
    const early = trace({ startTimeUnixNano: 500n });
    expect(idsOf(tracesAfter([a, b, c, d, early], cursorOf(d), 2).items)).toEqual(idsOf([a, c]));
  });

  it('give the newest first for a user', () => {
    expect(idsOf(newestTraces([a, b, c, d], 3))).toEqual(idsOf([c, a, d]));
  });
});

describe("a user's sessions", () => {
  const traces = summaries([
    trace({ sessionId: 'old', startTimeUnixNano: 1_000n, endTimeUnixNano: 2_000n, costNanoUsd: 7 }),
    trace({ sessionId: 'new', startTimeUnixNano: 5_000n, endTimeUnixNano: 9_000n }),
    trace({ sessionId: 'old', startTimeUnixNano: 3_000n, endTimeUnixNano: 4_000n, errorCount: 1 }),
    trace({ sessionId: null, startTimeUnixNano: 9_500n, endTimeUnixNano: 9_900n }),
    trace({ sessionId: 'tie-b', startTimeUnixNano: 2_500n, endTimeUnixNano: 4_000n }),
    trace({ sessionId: 'tie-a', startTimeUnixNano: 2_600n, endTimeUnixNano: 4_000n }),
  ]);

  it('are newest activity first, each over its traces, the traces without one left out', () => {
    const sessions = sessionsOf(traces);
    expect(sessions.map((session) => session.sessionId)).toEqual(['new', 'old', 'tie-a', 'tie-b']);
    expect(sessions[1]).toEqual({
      sessionId: 'old',
      traceCount: 2,
      firstStartUnixNano: 1_000n,
      lastEndUnixNano: 4_000n,
      inputTokens: 200,
      outputTokens: 20,
      costNanoUsd: 7,
      errorCount: 1,
    });
  });

  it('page after the session the cursor names', () => {
    const sessions = sessionsOf(traces);
    const first = sessionsAfter(sessions, undefined, 2);
    expect(first.items.map((session) => session.sessionId)).toEqual(['new', 'old']);
    expect(first.more).toBe(true);
    const second = sessionsAfter(sessions, { lastEndUnixNano: 4_000n, sessionId: 'old' }, 2);
    expect(second.items.map((session) => session.sessionId)).toEqual(['tie-a', 'tie-b']);
    expect(second.more).toBe(false);
    const third = sessionsAfter(sessions, { lastEndUnixNano: 4_000n, sessionId: 'tie-a' }, 2);
    expect(third.items.map((session) => session.sessionId)).toEqual(['tie-b']);
  });
});
