// What both OTLP decoders (decode-protobuf.ts, decode-json.ts) share: the proto3 defaults of each
// message, the open enums, and the hex table for ids.
import protobuf from 'protobufjs';
import type {
  KeyValue,
  OtlpEvent,
  OtlpLink,
  OtlpResourceSpans,
  OtlpScope,
  OtlpScopeSpans,
  OtlpSpan,
  OtlpSpanKind,
  OtlpStatus,
} from '../../domain/tracing/otlp.ts';

/** AnyValue nesting allowed, as deep as protobufjs itself recurses. */
export const maxValueDepth = protobuf.util.recursionLimit;

/** Open enums: a value unknown here reads as unspecified, as an unset field would. */
export const spanKinds: readonly OtlpSpanKind[] = [0, 1, 2, 3, 4, 5];
export const statusCodes: readonly OtlpStatus['code'][] = [0, 1, 2];

/** Each message at its proto3 defaults, fields in the interfaces' order (one object shape each). */
export const empty = {
  resourceSpans: (): OtlpResourceSpans => ({ resource: empty.resource(), schemaUrl: '', scopeSpans: [] }),
  resource: (): OtlpResourceSpans['resource'] => ({ attributes: [], droppedAttributesCount: 0 }),
  scopeSpans: (): OtlpScopeSpans => ({ scope: empty.scope(), schemaUrl: '', spans: [] }),
  scope: (): OtlpScope => ({ name: '', version: '', attributes: [] }),
  event: (): OtlpEvent => ({ timeUnixNano: 0n, name: '', attributes: [], droppedAttributesCount: 0 }),
  link: (): OtlpLink => ({
    traceId: '',
    spanId: '',
    traceState: '',
    attributes: [],
    droppedAttributesCount: 0,
  }),
  status: (): OtlpStatus => ({ code: 0, message: '' }),
  keyValue: (): KeyValue => ({ key: '', value: { kind: 'empty' } }),
  span: (): OtlpSpan => ({
    traceId: '',
    spanId: '',
    parentSpanId: '',
    traceState: '',
    name: '',
    kind: 0,
    startTimeUnixNano: 0n,
    endTimeUnixNano: 0n,
    attributes: [],
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    links: [],
    droppedLinksCount: 0,
    status: empty.status(),
  }),
};
