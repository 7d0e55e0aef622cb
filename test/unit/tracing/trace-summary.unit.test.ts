import { describe, expect, it } from 'vitest';
import type { SpanKind, StoredSpan } from '../../../domain/tracing/span.ts';
import { summarizeTrace } from '../../../domain/tracing/trace-summary.ts';
import { storedSpan } from '../../harness/spans.ts';

// 001, "Trace-level values".
const root = (overrides: Partial<StoredSpan> = {}) =>
  storedSpan({
    spanId: 'root',
    name: 'chat turn',
    startTimeUnixNano: 5_000n,
    endTimeUnixNano: 9_000n,
    ...overrides,
  });
const child = (spanId: string, startTimeUnixNano: bigint, overrides: Partial<StoredSpan> = {}) =>
  storedSpan({
    spanId,
    parentSpanId: 'root',
    name: spanId,
    startTimeUnixNano,
    endTimeUnixNano: startTimeUnixNano + 100n,
    ...overrides,
  });

type Values = Pick<StoredSpan, 'sessionId' | 'userId' | 'serviceName' | 'environment'>;
const none: Values = { sessionId: null, userId: null, serviceName: null, environment: null };

describe('session, user, service and environment', () => {
  it.each<[string, StoredSpan[], Values]>([
    [
      'from the root span, even when it starts after others',
      [
        child('early', 1_000n, { sessionId: 'child-s', userId: 'child-u' }),
        root({ sessionId: 'root-s', userId: 'root-u' }),
      ],
      { ...none, sessionId: 'root-s', userId: 'root-u' },
    ],
    [
      'from the earliest span that has one when the root has none',
      [
        root({ serviceName: 'api' }),
        child('late', 8_000n, { sessionId: 'late-s' }),
        child('early', 6_000n, { sessionId: 'early-s' }),
      ],
      { ...none, sessionId: 'early-s', serviceName: 'api' },
    ],
    [
      'each value on its own',
      [
        root({ environment: 'prod' }),
        child('a', 6_000n, { userId: 'u-a' }),
        child('b', 7_000n, { sessionId: 's-b', userId: 'u-b', serviceName: 'worker' }),
      ],
      { sessionId: 's-b', userId: 'u-a', serviceName: 'worker', environment: 'prod' },
    ],
    [
      'from the earliest span when the root has not arrived',
      [child('b', 7_000n, { sessionId: 's-b' }), child('a', 6_000n, { sessionId: 's-a' })],
      { ...none, sessionId: 's-a' },
    ],
    [
      'the first sent among spans starting together',
      [child('x', 6_000n, { userId: 'u-x' }), child('y', 6_000n, { userId: 'u-y' })],
      { ...none, userId: 'u-x' },
    ],
    ['null when no span has one', [root(), child('a', 6_000n)], none],
  ])('%s', (_, spans, values) => {
    const summary = summarizeTrace(spans);
    expect({
      sessionId: summary.sessionId,
      userId: summary.userId,
      serviceName: summary.serviceName,
      environment: summary.environment,
    }).toEqual(values);
  });
});

describe('token totals', () => {
  const withTokens = (
    spanId: string,
    kind: SpanKind,
    inputTokens: number | null,
    outputTokens: number | null,
  ) => child(spanId, 6_000n, { kind, inputTokens, outputTokens });

  it.each<[string, StoredSpan[], [number, number]]>([
    [
      'sums generation spans only; the agent span repeats its calls and is not added again',
      [
        withTokens('agent', 'agent', 300, 70),
        withTokens('call-1', 'generation', 100, 20),
        withTokens('call-2', 'generation', 200, 50),
        withTokens('tool', 'tool', 9, 9),
        withTokens('other', 'span', 9, 9),
        withTokens('search', 'retrieval', 9, 9),
      ],
      [300, 70],
    ],
    [
      'counts missing tokens as zero',
      [withTokens('g1', 'generation', null, 5), withTokens('g2', 'generation', 4, null)],
      [4, 5],
    ],
    ['is zero without generations', [withTokens('agent', 'agent', 300, 70)], [0, 0]],
  ])('%s', (_, spans, [input, output]) => {
    const summary = summarizeTrace(spans);
    expect([summary.inputTokens, summary.outputTokens]).toEqual([input, output]);
  });
});

describe('cost total', () => {
  const costing = (spanId: string, kind: SpanKind, costNanoUsd: number | null) =>
    child(spanId, 6_000n, { kind, costNanoUsd });

  it('sums the generations that have a cost, exactly, leaving out those without one', () => {
    const spans = [
      costing('g1', 'generation', 1),
      costing('g2', 'generation', 9_007_199_254_740_000),
      costing('g3', 'generation', null),
      costing('agent', 'agent', 500),
    ];
    expect(summarizeTrace(spans).costNanoUsd).toBe(9_007_199_254_740_001);
  });

  it('is none, not zero, when no generation has a cost', () => {
    expect(
      summarizeTrace([costing('g1', 'generation', null), costing('a', 'agent', 7)]).costNanoUsd,
    ).toBeNull();
  });

  it('is zero when the generations cost nothing', () => {
    expect(summarizeTrace([costing('g1', 'generation', 0)]).costNanoUsd).toBe(0);
  });
});

describe('times, counts and root', () => {
  it('summarizes a trace', () => {
    const summary = summarizeTrace([
      child('late', 8_000n, { endTimeUnixNano: 12_000n, statusCode: 2 }),
      root({ statusCode: 1 }),
      child('early', 4_000n, { statusCode: 2 }),
      child('ok', 6_000n),
    ]);
    expect(summary).toMatchObject({
      traceId: '5b8efff798038103d269b633813fc60c',
      startTimeUnixNano: 4_000n,
      endTimeUnixNano: 12_000n,
      spanCount: 4,
      rootSpanName: 'chat turn',
      errorCount: 2,
    });
  });

  it('has no root span name before the root arrives', () => {
    expect(summarizeTrace([child('a', 6_000n)]).rootSpanName).toBeNull();
  });

  it('summarizes no spans as empty', () => {
    expect(summarizeTrace([])).toEqual({
      traceId: '',
      ...none,
      inputTokens: 0,
      outputTokens: 0,
      costNanoUsd: null,
      startTimeUnixNano: 0n,
      endTimeUnixNano: 0n,
      spanCount: 0,
      rootSpanName: null,
      errorCount: 0,
    });
  });
});
