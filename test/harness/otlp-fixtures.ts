import { randomBytes } from 'node:crypto';
// A request in our parsed model, and the same request the way exporters put it on the wire:
// protobuf encoded by protobufjs from the vendored protos, and OTLP/JSON with hex ids.
import type { AnyValue, KeyValue, OtlpSpan, OtlpTraceRequest } from '../../domain/tracing/otlp.ts';
import { loadOtlpRoot, otlpTypeNames } from '../../schemas/otlp/otlp-root.ts';

export const otlpRoot = loadOtlpRoot();
export const requestType = otlpRoot.lookupType(otlpTypeNames.request);
export const responseType = otlpRoot.lookupType(otlpTypeNames.response);
export const statusType = otlpRoot.lookupType(otlpTypeNames.status);

export const maxUint64 = 2n ** 64n - 1n;
export const minInt64 = -(2n ** 63n);
export const maxInt64 = 2n ** 63n - 1n;

/** One attribute of every AnyValue kind, with edge values where the kind has them. */
export const everyKind: KeyValue[] = [
  { key: 'gen_ai.request.model', value: { kind: 'string', value: 'gpt-4o ✓' } },
  { key: 'llm.is_streaming', value: { kind: 'bool', value: true } },
  { key: 'gen_ai.usage.input_tokens', value: { kind: 'int', value: 1234n } },
  { key: 'int.above.2^53', value: { kind: 'int', value: 2n ** 53n + 1n } },
  { key: 'int.negative', value: { kind: 'int', value: -42n } },
  { key: 'int.min', value: { kind: 'int', value: minInt64 } },
  { key: 'int.max', value: { kind: 'int', value: maxInt64 } },
  { key: 'gen_ai.request.temperature', value: { kind: 'double', value: 0.7 } },
  { key: 'payload', value: { kind: 'bytes', value: new Uint8Array([0, 255, 16]) } },
  {
    key: 'tags',
    value: {
      kind: 'array',
      values: [{ kind: 'string', value: 'a' }, { kind: 'int', value: 1n }, { kind: 'empty' }],
    },
  },
  {
    key: 'metadata',
    value: {
      kind: 'kvlist',
      values: [
        { key: 'inner', value: { kind: 'string', value: 'x' } },
        { key: 'deep', value: { kind: 'array', values: [{ kind: 'bool', value: false }] } },
      ],
    },
  },
  { key: 'nothing', value: { kind: 'empty' } },
];

export function span(overrides: Partial<OtlpSpan> = {}): OtlpSpan {
  return {
    traceId: '5b8efff798038103d269b633813fc60c',
    spanId: 'eee19b7ec3c1b174',
    parentSpanId: 'eee19b7ec3c1b173',
    traceState: 'rojo=00f067aa0ba902b7',
    name: 'chat gpt-4o',
    kind: 3,
    startTimeUnixNano: 1_700_000_000_123_456_789n,
    endTimeUnixNano: maxUint64,
    attributes: everyKind,
    droppedAttributesCount: 1,
    events: [
      {
        timeUnixNano: 2n ** 63n + 1n,
        name: 'gen_ai.client.inference.operation.details',
        attributes: [{ key: 'gen_ai.input.messages', value: { kind: 'string', value: '[]' } }],
        droppedAttributesCount: 2,
      },
    ],
    droppedEventsCount: 3,
    links: [
      {
        traceId: '0af7651916cd43dd8448eb211c80319c',
        spanId: 'b7ad6b7169203331',
        traceState: '',
        attributes: [],
        droppedAttributesCount: 4,
      },
    ],
    droppedLinksCount: 5,
    status: { code: 2, message: 'upstream timed out' },
    ...overrides,
  };
}

export function request(spans: OtlpSpan[] = [span()]): OtlpTraceRequest {
  return {
    resourceSpans: [
      {
        resource: {
          attributes: [{ key: 'service.name', value: { kind: 'string', value: 'chatbot' } }],
          droppedAttributesCount: 0,
        },
        schemaUrl: 'https://opentelemetry.io/schemas/1.26.0',
        scopeSpans: [
          {
            scope: { name: 'openinference', version: '1.2.3', attributes: [] },
            schemaUrl: '',
            spans,
          },
        ],
      },
    ],
  };
}

// ---- protobuf, as an exporter encodes it --------------------------------------------------------

const hexBytes = (hex: string): Uint8Array => Buffer.from(hex, 'hex');
/** A 64-bit value as the two 32-bit halves protobufjs takes for int64 and fixed64 fields. */
const long = (value: bigint, unsigned: boolean) => ({
  low: Number(BigInt.asIntN(32, value)),
  high: Number(BigInt.asIntN(32, value >> 32n)),
  unsigned,
});

function wireValue(value: AnyValue): object {
  switch (value.kind) {
    case 'string':
      return { stringValue: value.value };
    case 'bool':
      return { boolValue: value.value };
    case 'int':
      return { intValue: long(value.value, false) };
    case 'double':
      return { doubleValue: value.value };
    case 'bytes':
      return { bytesValue: value.value };
    case 'array':
      return { arrayValue: { values: value.values.map(wireValue) } };
    case 'kvlist':
      return { kvlistValue: { values: value.values.map(wireKeyValue) } };
    case 'empty':
      return {};
  }
}

const wireKeyValue = (kv: KeyValue) => ({ key: kv.key, value: wireValue(kv.value) });

function wireSpan(s: OtlpSpan): object {
  return {
    ...s,
    traceId: hexBytes(s.traceId),
    spanId: hexBytes(s.spanId),
    parentSpanId: hexBytes(s.parentSpanId),
    startTimeUnixNano: long(s.startTimeUnixNano, true),
    endTimeUnixNano: long(s.endTimeUnixNano, true),
    attributes: s.attributes.map(wireKeyValue),
    events: s.events.map((e) => ({
      ...e,
      timeUnixNano: long(e.timeUnixNano, true),
      attributes: e.attributes.map(wireKeyValue),
    })),
    links: s.links.map((l) => ({
      ...l,
      traceId: hexBytes(l.traceId),
      spanId: hexBytes(l.spanId),
      attributes: l.attributes.map(wireKeyValue),
    })),
  };
}

export function toProtobuf(req: OtlpTraceRequest): Buffer {
  const wire = {
    resourceSpans: req.resourceSpans.map((rs) => ({
      ...rs,
      resource: { ...rs.resource, attributes: rs.resource.attributes.map(wireKeyValue) },
      scopeSpans: rs.scopeSpans.map((ss) => ({
        ...ss,
        scope: { ...ss.scope, attributes: ss.scope.attributes.map(wireKeyValue) },
        spans: ss.spans.map(wireSpan),
      })),
    })),
  };
  return Buffer.from(requestType.encode(requestType.fromObject(wire)).finish());
}

// ---- OTLP/JSON ---------------------------------------------------------------------------------

/**
 * OTLP/JSON text for a request: ids hex, bytes base64, enums as integers, int64 as decimal strings
 * or as bare JSON numbers (all digits, even past 2^53, as a Go exporter would write them).
 */
export function toOtlpJson(req: OtlpTraceRequest, int64As: 'string' | 'number'): string {
  const text = JSON.stringify(req, (_key, value: unknown) => {
    if (typeof value === 'bigint') return int64As === 'string' ? value.toString() : `<int>${value}`;
    if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
    if (isAnyValue(value)) return jsonValue(value);
    return value;
  });
  return text.replace(/"<int>(-?\d+)"/g, '$1');
}

function isAnyValue(value: unknown): value is AnyValue {
  return typeof value === 'object' && value !== null && 'kind' in value && typeof value.kind === 'string';
}

function jsonValue(value: AnyValue): object {
  switch (value.kind) {
    case 'string':
      return { stringValue: value.value };
    case 'bool':
      return { boolValue: value.value };
    case 'int':
      return { intValue: value.value };
    case 'double':
      return { doubleValue: value.value };
    case 'bytes':
      return { bytesValue: value.value };
    case 'array':
      return { arrayValue: { values: value.values } };
    case 'kvlist':
      return { kvlistValue: { values: value.values } };
    case 'empty':
      return {};
  }
}

/** OTLP/JSON as a user's exporter sends it: one span named `checkout` of service `shop`, ended now. */
export function oneSpanJson(traceId: string): object {
  const now = BigInt(Date.now()) * 1_000_000n;
  const checkout = {
    traceId,
    spanId: randomBytes(8).toString('hex'),
    name: 'checkout',
    kind: 1,
    startTimeUnixNano: String(now - 5_000_000n),
    endTimeUnixNano: String(now),
  };
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'shop' } }] },
        scopeSpans: [{ scope: { name: 'manual' }, spans: [checkout] }],
      },
    ],
  };
}
