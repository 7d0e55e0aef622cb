// The OTLP trace data model as the rest of the code sees it, once the request body has been
// parsed (protobuf or OTLP/JSON): ids as lowercase hex, times as bigint nanoseconds, values as a
// tagged union. Parsing produces these; normalization reads them. See opentelemetry-proto
// trace/v1/trace.proto and common/v1/common.proto.

export type AnyValue =
  | { kind: 'string'; value: string }
  | { kind: 'bool'; value: boolean }
  | { kind: 'int'; value: bigint }
  | { kind: 'double'; value: number }
  | { kind: 'bytes'; value: Uint8Array }
  | { kind: 'array'; values: AnyValue[] }
  | { kind: 'kvlist'; values: KeyValue[] }
  | { kind: 'empty' };

export interface KeyValue {
  key: string;
  value: AnyValue;
}

/** OTLP SpanKind: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
export type OtlpSpanKind = 0 | 1 | 2 | 3 | 4 | 5;

/** Status.code: 0 unset, 1 ok, 2 error. */
export interface OtlpStatus {
  code: 0 | 1 | 2;
  message: string;
}

export interface OtlpEvent {
  timeUnixNano: bigint;
  name: string;
  attributes: KeyValue[];
  droppedAttributesCount: number;
}

export interface OtlpLink {
  traceId: string;
  spanId: string;
  traceState: string;
  attributes: KeyValue[];
  droppedAttributesCount: number;
}

export interface OtlpSpan {
  /** Lowercase hex as received; may be empty or of the wrong length (admission refuses it). */
  traceId: string;
  spanId: string;
  parentSpanId: string;
  traceState: string;
  name: string;
  kind: OtlpSpanKind;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: KeyValue[];
  droppedAttributesCount: number;
  events: OtlpEvent[];
  droppedEventsCount: number;
  links: OtlpLink[];
  droppedLinksCount: number;
  status: OtlpStatus;
}

export interface OtlpScope {
  name: string;
  version: string;
  attributes: KeyValue[];
}

export interface OtlpScopeSpans {
  scope: OtlpScope;
  schemaUrl: string;
  spans: OtlpSpan[];
}

export interface OtlpResourceSpans {
  resource: { attributes: KeyValue[]; droppedAttributesCount: number };
  schemaUrl: string;
  scopeSpans: OtlpScopeSpans[];
}

/** An ExportTraceServiceRequest. */
export interface OtlpTraceRequest {
  resourceSpans: OtlpResourceSpans[];
}
