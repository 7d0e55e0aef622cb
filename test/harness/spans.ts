import { randomBytes } from 'node:crypto';
import type { PublishedSpan, ReceivedTrace, SpanEvent } from '../../domain/tracing/events.ts';
import type { StoredSpan } from '../../domain/tracing/span.ts';

// The tests' one stored span: a plain root span (kind `span`, no model, tokens, input or output,
// empty attributes, events, links and resource) whose fields each test overrides with what it is
// about. `publishedSpan` is the same span as orrery.spans.v1 carries it, with its measured size.

export function storedSpan(overrides: Partial<StoredSpan> = {}): StoredSpan {
  return {
    traceId: '5b8efff798038103d269b633813fc60c',
    spanId: 'eee19b7ec3c1b174',
    parentSpanId: '',
    name: 'span',
    kind: 'span',
    otelKind: 1,
    startTimeUnixNano: 1_000n,
    endTimeUnixNano: 2_000n,
    statusCode: 0,
    statusMessage: '',
    model: null,
    inputTokens: null,
    outputTokens: null,
    cachedInputTokens: null,
    reasoningTokens: null,
    costNanoUsd: null,
    input: null,
    output: null,
    inputTruncated: false,
    outputTruncated: false,
    sessionId: null,
    userId: null,
    serviceName: null,
    environment: null,
    attributes: '{}',
    events: '[]',
    links: '[]',
    resourceAttributes: '{}',
    scopeName: '',
    scopeVersion: '',
    redactedCount: 0,
    ...overrides,
  };
}

export function publishedSpan(overrides: Partial<PublishedSpan> = {}): PublishedSpan {
  return { ...storedSpan(), sizeBytes: 600, ...overrides };
}

export const randomTraceId = () => randomBytes(16).toString('hex');
export const randomSpanId = () => randomBytes(8).toString('hex');

/** A SpansReceived of `traces` for `orgId`, with an event id of its own. */
export function spansReceivedEvent(
  orgId: string,
  traces: ReceivedTrace[],
  occurredAt: Date,
): Extract<SpanEvent, { type: 'SpansReceived' }> {
  return { type: 'SpansReceived', eventId: `e-${randomBytes(4).toString('hex')}`, orgId, occurredAt, traces };
}
