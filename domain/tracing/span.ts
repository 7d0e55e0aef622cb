// A span as Orrery stores it: the spec's "Stored span" fields (001, Resources and their fields)
// plus what analytics filter and group on. Produced by normalization from an OtlpSpan and its
// resource and scope; published on orrery.spans.v1 and projected into ClickHouse.

export const spanKinds = ['generation', 'tool', 'agent', 'retrieval', 'span'] as const;
export type SpanKind = (typeof spanKinds)[number];

/** A JSON value as stored: OTLP AnyValue converted to plain JSON (see normalization). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface StoredSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  kind: SpanKind;
  /** OTLP SpanKind number, kept for display. */
  otelKind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  statusCode: 0 | 1 | 2;
  statusMessage: string;
  model: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  /** Input tokens read from a cache: a part of `inputTokens`. */
  cachedInputTokens: number | null;
  /** Output tokens spent reasoning: a part of `outputTokens`. */
  reasoningTokens: number | null;
  /**
   * A generation's cost in billionths of a US dollar, at its org's prices when it was received
   * (prices.ts); null for any other kind, a model without a price, or no tokens counted.
   */
  costNanoUsd: number | null;
  /** JSON text: `{ "messages": [...] }` or `{ "value": ... }`; at most `limits.inputOutputBytes`. */
  input: string | null;
  output: string | null;
  inputTruncated: boolean;
  outputTruncated: boolean;
  sessionId: string | null;
  userId: string | null;
  serviceName: string | null;
  environment: string | null;
  /** JSON text of an object: the attributes not consumed as input or output, as sent. */
  attributes: string;
  /** JSON text of an array of `{ name, time_unix_nano, attributes }`. */
  events: string;
  /** JSON text of an array of `{ trace_id, span_id, trace_state, attributes }`. */
  links: string;
  /** JSON text of an object: the resource's attributes (at most `limits.resourceAttributesBytes`). */
  resourceAttributes: string;
  scopeName: string;
  scopeVersion: string;
  redactedCount: number;
}
