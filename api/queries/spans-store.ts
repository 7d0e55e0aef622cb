import type { SpanKind, StoredSpan } from '../../domain/tracing/span.ts';
import { type ClickHouseReader, hexId, idBytes, type SqlFragment, sql } from '../../platform/clickhouse.ts';

// One trace's spans and one span, from the spans read model, within one org. A redelivered span is
// stored twice until a merge collapses it; the reads keep the copy sent first (the least offset and
// place in its event), which is the span's place in the order sent wherever the trace list ranks it
// (traces-store.ts), instead of FINAL, which would merge every part of the org's range to find a
// trace's few rows. PREWHERE reads the other columns only for the trace's rows.

/** The order the spans were sent in: the event's offset, then the span's place in it. */
const sentOrder = sql`received_offset, received_index`;

/** A span's head beside its ids: what the trace view and the span detail read. */
const headValues = sql`name, kind, otel_kind, start_time_unix_nano, end_time_unix_nano, status_code,
  status_message, model, input_tokens, output_tokens, cached_input_tokens, reasoning_tokens,
  cost_nano_usd, session_id, user_id, service_name,
  environment, input_truncated, output_truncated, redacted_count, scope_name, scope_version`;

/** A span's ids as hex, under names of their own (the stored columns hold their bytes). */
const idsOutput = sql`${hexId('span_id')} AS span_hex, ${hexId('parent_span_id')} AS parent_hex`;

/** The head as answered. */
const headOutput = sql`${idsOutput}, ${headValues}`;

interface HeadRow {
  span_hex: string;
  parent_hex: string;
  name: string;
  kind: SpanKind;
  otel_kind: number;
  start_time_unix_nano: string;
  end_time_unix_nano: string;
  status_code: number;
  status_message: string;
  model: string | null;
  input_tokens: string | null;
  output_tokens: string | null;
  cached_input_tokens: string | null;
  reasoning_tokens: string | null;
  cost_nano_usd: string | null;
  session_id: string | null;
  user_id: string | null;
  service_name: string | null;
  environment: string | null;
  input_truncated: number;
  output_truncated: number;
  redacted_count: number;
  scope_name: string;
  scope_version: string;
}

const optionalCount = (value: string | null) => (value === null ? null : Number(value));

/** A span read without its bodies; `summarizeTrace` and the tree read none of them. */
function spanFromHead(traceId: string, row: HeadRow): StoredSpan {
  return {
    traceId,
    spanId: row.span_hex,
    parentSpanId: row.parent_hex,
    name: row.name,
    kind: row.kind,
    otelKind: row.otel_kind,
    startTimeUnixNano: BigInt(row.start_time_unix_nano),
    endTimeUnixNano: BigInt(row.end_time_unix_nano),
    statusCode: row.status_code === 1 || row.status_code === 2 ? row.status_code : 0,
    statusMessage: row.status_message,
    model: row.model,
    inputTokens: optionalCount(row.input_tokens),
    outputTokens: optionalCount(row.output_tokens),
    cachedInputTokens: optionalCount(row.cached_input_tokens),
    reasoningTokens: optionalCount(row.reasoning_tokens),
    costNanoUsd: optionalCount(row.cost_nano_usd),
    input: null,
    output: null,
    inputTruncated: row.input_truncated === 1,
    outputTruncated: row.output_truncated === 1,
    sessionId: row.session_id,
    userId: row.user_id,
    serviceName: row.service_name,
    environment: row.environment,
    attributes: '{}',
    events: '[]',
    links: '[]',
    resourceAttributes: '{}',
    scopeName: row.scope_name,
    scopeVersion: row.scope_version,
    redactedCount: row.redacted_count,
  };
}

/** A trace's spans without input, output, attributes, events and links, by start then as sent. */
export async function traceSpans(
  clickhouse: ClickHouseReader,
  orgId: string,
  traceId: string,
): Promise<StoredSpan[]> {
  const result = await clickhouse.query({
    query: traceRows(orgId, traceId, headValues).text,
    format: 'JSONEachRow',
  });
  return (await result.json<HeadRow>()).map((row) => spanFromHead(traceId, row));
}

/** What a span's row in the trace view draws: its name, kind, times, status and model. */
const outlineValues = sql`name, kind, start_time_unix_nano, end_time_unix_nano, status_code, model`;

interface OutlineRow {
  span_hex: string;
  parent_hex: string;
  name: string;
  kind: SpanKind;
  start_time_unix_nano: string;
  end_time_unix_nano: string;
  status_code: number;
  model: string | null;
}

/** A span as the trace view's tree draws it; the rest is read when the span is opened. */
export interface OutlineSpan {
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: SpanKind;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  statusCode: number;
  model: string | null;
}

/**
 * A trace's spans in outline, in the order `traceSpans` gives: a third of the head's bytes, which
 * is what lets a trace at 001's limit (10,000 spans) open in the dashboard within a second.
 */
export async function traceOutline(
  clickhouse: ClickHouseReader,
  orgId: string,
  traceId: string,
): Promise<OutlineSpan[]> {
  const result = await clickhouse.query({
    query: traceRows(orgId, traceId, outlineValues).text,
    format: 'JSONEachRow',
  });
  return (await result.json<OutlineRow>()).map((row) => ({
    spanId: row.span_hex,
    parentSpanId: row.parent_hex,
    name: row.name,
    kind: row.kind,
    startTimeUnixNano: BigInt(row.start_time_unix_nano),
    endTimeUnixNano: BigInt(row.end_time_unix_nano),
    statusCode: row.status_code,
    model: row.model,
  }));
}

/** `values` of a trace's spans, each span once (the copy sent first), by start then as sent. */
function traceRows(orgId: string, traceId: string, values: SqlFragment): SqlFragment {
  return sql`
    SELECT ${idsOutput}, ${values} FROM (
      SELECT span_id, parent_span_id, ${values}, ${sentOrder} FROM spans
      PREWHERE org_id = ${orgId} AND trace_id = ${idBytes(traceId)}
      ORDER BY span_id, ${sentOrder}
      LIMIT 1 BY span_id)
    ORDER BY start_time_unix_nano, ${sentOrder}`;
}

export interface FullSpan {
  span: StoredSpan;
  traceFirstReceivedAt: Date;
}

interface FullRow extends HeadRow {
  input: string | null;
  output: string | null;
  attributes: string;
  events: string;
  links: string;
  resource_attributes: string;
  received_at: number;
}

/** One span with everything stored, or undefined when the org has no such span. */
export async function findSpan(
  clickhouse: ClickHouseReader,
  orgId: string,
  traceId: string,
  spanId: string,
): Promise<FullSpan | undefined> {
  const query = sql`
    SELECT ${headOutput}, input, output, attributes, events, links, resource_attributes,
      toUnixTimestamp(trace_first_received_at) AS received_at
    FROM spans
    PREWHERE org_id = ${orgId} AND trace_id = ${idBytes(traceId)} AND span_id = ${idBytes(spanId)}
    ORDER BY ${sentOrder}
    LIMIT 1`;
  const result = await clickhouse.query({ query: query.text, format: 'JSONEachRow' });
  const [row] = await result.json<FullRow>();
  if (!row) return undefined;
  return {
    span: {
      ...spanFromHead(traceId, row),
      input: row.input,
      output: row.output,
      attributes: row.attributes,
      events: row.events,
      links: row.links,
      resourceAttributes: row.resource_attributes,
    },
    traceFirstReceivedAt: new Date(row.received_at * 1000),
  };
}
