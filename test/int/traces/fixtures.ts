import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createApiKey, createOrg } from '../../../api/admin/commands.ts';
import type { Scope } from '../../../domain/orgs/events.ts';
import type { PublishedSpan, SpanEvent } from '../../../domain/tracing/events.ts';
import { publishSpanEvents } from '../../../producers/spans.ts';
import { eventually, type TestPlatform } from '../../harness/platform.ts';
import { publishedSpan } from '../../harness/spans.ts';

// Realistic LLM traces for the query surface's tests, published straight onto orrery.spans.v1
// (as the OTLP endpoint does once it has admitted them), and small helpers to read them back.

export type SpansReceived = Extract<SpanEvent, { type: 'SpansReceived' }>;

export const newTraceId = () => randomBytes(16).toString('hex');
export const newSpanId = () => randomBytes(8).toString('hex');
const ms = 1_000_000n;
export const nanos = (time: Date) => BigInt(time.getTime()) * ms;

/** A UTC instant `daysAgo` days before today, at `hour`: fixed days for the analytics. */
export function dayAt(daysAgo: number, hour: number, minute = 0): Date {
  const today = new Date();
  return new Date(
    Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - daysAgo, hour, minute),
  );
}

/** A plain span of `traceId` two days ago, 100 ms long, with an id of its own. */
export function span(traceId: string, overrides: Partial<PublishedSpan> = {}): PublishedSpan {
  const start = overrides.startTimeUnixNano ?? nanos(dayAt(2, 10));
  return publishedSpan({
    traceId,
    spanId: newSpanId(),
    startTimeUnixNano: start,
    endTimeUnixNano: start + 100n * ms,
    scopeName: 'test-instrumentation',
    scopeVersion: '1.0.0',
    ...overrides,
  });
}

export function spansReceived(
  orgId: string,
  traceId: string,
  spans: PublishedSpan[],
  traceFirstReceivedAt = new Date(),
): SpansReceived {
  return {
    type: 'SpansReceived',
    eventId: randomUUID(),
    orgId,
    occurredAt: new Date(),
    traces: [{ traceId, traceFirstReceivedAt, spans }],
  };
}

export function traceDeleted(orgId: string, traceId: string): SpanEvent {
  return { type: 'TraceDeleted', eventId: randomUUID(), orgId, traceId, occurredAt: new Date() };
}

/**
 * A support agent's turn, as the AI SDK or OpenInference would export it: an `agent` root that
 * repeats its calls' usage (1,500 in, 300 out), two `generation` children (1,000/200 and 500/100)
 * with a `tool` call between them, the session only on the first generation, service and
 * environment on every span's resource. Trace totals: 1,500 in and 300 out, not 3,000 and 600.
 * Only the first call has a cost (gpt-4o's 2.5 and 10 USD per million: 4,500 micro-dollars), as
 * if the second had been received before its model had a price.
 */
export function agentTrace(start: Date, options: { name?: string; sessionId?: string } = {}) {
  const traceId = newTraceId();
  const t0 = nanos(start);
  const resource = { serviceName: 'support-bot', environment: 'production' };
  const root = span(traceId, {
    name: options.name ?? 'support-agent',
    kind: 'agent',
    model: 'gpt-4o',
    inputTokens: 1500,
    outputTokens: 300,
    startTimeUnixNano: t0,
    endTimeUnixNano: t0 + 4000n * ms,
    input: JSON.stringify({ value: 'Where is my parcel?' }),
    output: JSON.stringify({ value: 'It arrives tomorrow.' }),
    attributes: JSON.stringify({ 'ai.operationId': 'ai.generateText', 'ai.model.id': 'gpt-4o' }),
    ...resource,
  });
  const child = (offsetMs: bigint, durationMs: bigint, overrides: Partial<PublishedSpan>) =>
    span(traceId, {
      parentSpanId: root.spanId,
      startTimeUnixNano: t0 + offsetMs * ms,
      endTimeUnixNano: t0 + (offsetMs + durationMs) * ms,
      ...resource,
      ...overrides,
    });
  const firstCall = child(10n, 1200n, {
    name: 'chat gpt-4o',
    kind: 'generation',
    model: 'gpt-4o-2024-08-06',
    inputTokens: 1000,
    outputTokens: 200,
    costNanoUsd: 4_500_000,
    sessionId: options.sessionId ?? 'session-1',
    userId: 'user-42',
    input: JSON.stringify({
      messages: [{ role: 'user', parts: [{ type: 'text', content: 'Where is my parcel?' }] }],
    }),
    output: JSON.stringify({
      messages: [
        {
          role: 'assistant',
          parts: [{ type: 'tool_call', id: 'call_1', name: 'track_parcel', arguments: { id: 'P-1' } }],
        },
      ],
    }),
    inputTruncated: true,
    redactedCount: 2,
    attributes: JSON.stringify({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.temperature': 0.2 }),
    events: JSON.stringify([{ name: 'first_token', time_unix_nano: String(t0 + 300n * ms), attributes: {} }]),
    links: JSON.stringify([
      { trace_id: newTraceId(), span_id: newSpanId(), trace_state: '', attributes: { kind: 'retry' } },
    ]),
    resourceAttributes: JSON.stringify({
      'service.name': 'support-bot',
      'deployment.environment': 'production',
    }),
  });
  const tool = child(1300n, 400n, {
    name: 'track_parcel',
    kind: 'tool',
    input: JSON.stringify({ value: { id: 'P-1' } }),
    output: JSON.stringify({ value: { status: 'in transit' } }),
    statusCode: 2,
    statusMessage: 'carrier API timed out once',
  });
  const secondCall = child(1800n, 2000n, {
    name: 'chat gpt-4o',
    kind: 'generation',
    model: 'gpt-4o-2024-08-06',
    inputTokens: 500,
    outputTokens: 100,
    sessionId: 'session-later',
  });
  return { traceId, root, firstCall, tool, secondCall, spans: [root, firstCall, tool, secondCall] };
}

export interface OrgWithKey {
  orgId: string;
  key: string;
}

export async function orgWithKey(
  platform: TestPlatform,
  scopes: Scope[] = ['traces:write'],
): Promise<OrgWithKey> {
  const { orgId } = await createOrg(platform.admin, `traces-${randomUUID().slice(0, 8)}`);
  const { key } = await createApiKey(platform.admin, orgId, scopes);
  return { orgId, key };
}

export const publish = (platform: TestPlatform, events: SpanEvent[]) =>
  publishSpanEvents(platform.producer, events);

/** GET on the API with the org's key; the parsed body and the status. */
export async function get<T = Record<string, unknown>>(
  platform: TestPlatform,
  key: string | undefined,
  url: string,
): Promise<{ status: number; body: T }> {
  const response = await platform.api.inject({
    method: 'GET',
    url,
    headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
  });
  return { status: response.statusCode, body: response.json() as T };
}

export interface TraceListBody {
  data: { trace_id: string; span_count: number; [field: string]: unknown }[];
  next_cursor: string | null;
}

/** Waits until the org's trace list holds exactly `count` traces, and returns it. */
export async function untilTraceCount(platform: TestPlatform, key: string, count: number, query = '') {
  return eventually(
    async () => {
      const { status, body } = await get<TraceListBody>(platform, key, `/api/traces?limit=100${query}`);
      expect(status).toBe(200);
      return body.data.length === count ? body : undefined;
    },
    30_000,
    `${count} traces`,
  );
}
