import type { AnyValue, KeyValue, OtlpTraceRequest } from '../../domain/tracing/otlp.ts';
import { empty, maxValueDepth, spanKinds, statusCodes } from './decode-common.ts';
import { OtlpError } from './errors.ts';

// ---- OTLP/JSON ---------------------------------------------------------------------------------
// The proto3 JSON mapping with OTLP's exceptions (ids as hex, enums as integers). Like the
// Collector's reader, this also takes snake_case field names, enum names, and int64 as a number or
// a decimal string; null means unset; unknown fields are ignored, as OTLP asks of receivers.

/** What was wrong, and where: the path grows as the error climbs out of the nesting. */
class JsonShapeError extends Error {
  readonly path: string[] = [];
}

/** An int64 that came as a JSON number too large to be exact: the body is then read again. */
const inexactInteger = new Error('an integer JSON number beyond 2^53; send int64 values as decimal strings');

export function decodeJson(body: string | Buffer): OtlpTraceRequest {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  try {
    try {
      return requestJson(parseJson(text), 0);
    } catch (error) {
      if (error !== inexactInteger) throw error;
      return requestJson(parseJson(quoteInt64Numbers(text)), 0);
    }
  } catch (error) {
    throw new OtlpError('invalid_otlp', `not an OTLP/JSON ExportTraceServiceRequest: ${describe(error)}`);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    throw new JsonShapeError('the body is not valid JSON'); // V8's own message quotes the input
  }
}

const int64Fields = ['startTimeUnixNano', 'endTimeUnixNano', 'timeUnixNano', 'intValue'];
const int64Number = new RegExp(
  `("(?:${[...int64Fields, ...int64Fields.map(snakeCase)].join('|')})"\\s*:\\s*)(-?\\d+)(?=\\s*[,}])`,
  'g',
);

/** JSON.parse rounds integers past 2^53; quoted in int64 positions, they keep every digit. */
function quoteInt64Numbers(text: string): string {
  return text.replace(int64Number, '$1"$2"');
}

function describe(error: unknown): string {
  if (!(error instanceof JsonShapeError)) return error instanceof Error ? error.message : String(error);
  const path = error.path.join('.').replaceAll('.[', '[');
  const shown = path.length > 160 ? `${path.slice(0, 80)}…${path.slice(-60)}` : path;
  return path === '' ? error.message : `${shown}: ${error.message}`;
}

function within(error: unknown, segment: string): unknown {
  if (error instanceof JsonShapeError) error.path.unshift(segment);
  return error;
}

type FieldReader<V> = (value: unknown, depth: number) => V;
type Fields<T> = Map<string, { name: keyof T; read: FieldReader<unknown> }>;

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function object(value: unknown): Record<string, unknown> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value))
    return value as Record<string, unknown>;
  throw new JsonShapeError(`expected an object, got ${Array.isArray(value) ? 'an array' : typeof value}`);
}

/**
 * A reader of one message type: each JSON field (by its lowerCamelCase name or the original
 * snake_case one) is read into the message made by `make`.
 */
function messageOf<T>(make: () => T, readers: { [K in keyof T]?: FieldReader<T[K]> }): FieldReader<T> {
  const fields: Fields<T> = new Map();
  for (const [name, read] of Object.entries(readers) as [keyof T & string, FieldReader<unknown>][]) {
    fields.set(name, { name, read }).set(snakeCase(name), { name, read });
  }
  return (value, depth) => {
    const o = object(value);
    const out = make();
    let key = '';
    try {
      for (key in o) {
        const field = fields.get(key);
        if (field !== undefined && o[key] !== null)
          (out as Record<keyof T, unknown>)[field.name] = field.read(o[key], depth);
      }
    } catch (error) {
      throw within(error, key);
    }
    return out;
  };
}

function listOf<T>(read: FieldReader<T>): FieldReader<T[]> {
  return (value, depth) => {
    if (!Array.isArray(value)) throw new JsonShapeError(`expected an array, got ${typeof value}`);
    const out: T[] = [];
    let i = 0;
    try {
      for (; i < value.length; i++) out.push(read(value[i], depth));
    } catch (error) {
      throw within(error, `[${i}]`);
    }
    return out;
  };
}

/** AnyValue is a oneof: each field is read into a whole value; should several come, the last wins. */
function anyValueJson(value: unknown, depth: number): AnyValue {
  if (depth > maxValueDepth) throw new JsonShapeError(`AnyValue nested deeper than ${maxValueDepth}`);
  const o = object(value);
  let out: AnyValue = { kind: 'empty' };
  let key = '';
  try {
    for (key in o) {
      const read = anyValueFields.get(key);
      if (read !== undefined && o[key] !== null) out = read(o[key], depth);
    }
  } catch (error) {
    throw within(error, key);
  }
  return out;
}

const keyValueJson: FieldReader<KeyValue> = messageOf(empty.keyValue, { key: str, value: anyValueJson });
const attributes = listOf(keyValueJson);
const arrayValueJson = messageOf(() => ({ values: [] as AnyValue[] }), { values: listOf(anyValueJson) });
const kvlistValueJson = messageOf(() => ({ values: [] as KeyValue[] }), { values: attributes });

const anyValueReaders: Record<string, FieldReader<AnyValue>> = {
  stringValue: (v) => ({ kind: 'string', value: str(v) }),
  boolValue: (v) => ({ kind: 'bool', value: bool(v) }),
  intValue: (v) => ({ kind: 'int', value: integer(v, -(2n ** 63n), 2n ** 63n - 1n) }),
  doubleValue: (v) => ({ kind: 'double', value: double(v) }),
  bytesValue: (v) => ({ kind: 'bytes', value: base64(v) }),
  arrayValue: (v, depth) => ({ kind: 'array', values: arrayValueJson(v, depth + 1).values }),
  kvlistValue: (v, depth) => ({ kind: 'kvlist', values: kvlistValueJson(v, depth + 1).values }),
};
const anyValueFields = new Map(
  Object.entries(anyValueReaders).flatMap(([name, read]): [string, FieldReader<AnyValue>][] => [
    [name, read],
    [snakeCase(name), read],
  ]),
);

const uint64: FieldReader<bigint> = (v) => integer(v, 0n, 2n ** 64n - 1n);
const uint32: FieldReader<number> = (v) => Number(integer(v, 0n, 0xffffffffn));
const spanKindNames = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'].map(
  (n) => `SPAN_KIND_${n}`,
);
const statusCodeNames = ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'];

const spanJson = messageOf(empty.span, {
  traceId: hex,
  spanId: hex,
  parentSpanId: hex,
  traceState: str,
  name: str,
  kind: (v) => enumValue(v, spanKinds, spanKindNames),
  startTimeUnixNano: uint64,
  endTimeUnixNano: uint64,
  attributes,
  droppedAttributesCount: uint32,
  events: listOf(
    messageOf(empty.event, { timeUnixNano: uint64, name: str, attributes, droppedAttributesCount: uint32 }),
  ),
  droppedEventsCount: uint32,
  links: listOf(
    messageOf(empty.link, {
      traceId: hex,
      spanId: hex,
      traceState: str,
      attributes,
      droppedAttributesCount: uint32,
    }),
  ),
  droppedLinksCount: uint32,
  status: messageOf(empty.status, { message: str, code: (v) => enumValue(v, statusCodes, statusCodeNames) }),
});
const scopeSpansJson = messageOf(empty.scopeSpans, {
  scope: messageOf(empty.scope, { name: str, version: str, attributes }),
  spans: listOf(spanJson),
  schemaUrl: str,
});
const resourceSpansJson = messageOf(empty.resourceSpans, {
  resource: messageOf(empty.resource, { attributes, droppedAttributesCount: uint32 }),
  scopeSpans: listOf(scopeSpansJson),
  schemaUrl: str,
});
const requestJson = messageOf((): OtlpTraceRequest => ({ resourceSpans: [] }), {
  resourceSpans: listOf(resourceSpansJson),
});

function str(v: unknown): string {
  if (typeof v === 'string') return v;
  throw new JsonShapeError(`expected a string, got ${typeof v}`);
}

function bool(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  throw new JsonShapeError(`expected true or false, got ${typeof v}`);
}

/** Ids: hex of whole bytes, any number of them (the empty string too), lowercased. */
function hex(v: unknown): string {
  if (typeof v === 'string' && /^(?:[0-9a-fA-F]{2})*$/.test(v)) return v.toLowerCase();
  throw new JsonShapeError('expected an id as a hex string of whole bytes');
}

function base64(v: unknown): Uint8Array {
  if (typeof v === 'string' && /^[A-Za-z0-9+/_-]*={0,2}$/.test(v))
    return new Uint8Array(Buffer.from(v, 'base64'));
  throw new JsonShapeError('expected a base64 string');
}

function double(v: unknown): number {
  if (typeof v === 'number') return v;
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  if (!Number.isNaN(n) || v === 'NaN') return n;
  throw new JsonShapeError('expected a number, "NaN", "Infinity" or "-Infinity"');
}

/** An int64 or fixed64: a JSON number (exact only up to 2^53) or a decimal string, within range. */
function integer(v: unknown, min: bigint, max: bigint): bigint {
  let n: bigint;
  if (typeof v === 'number' && Number.isSafeInteger(v)) n = BigInt(v);
  else if (typeof v === 'number' && Number.isInteger(v)) throw inexactInteger;
  else if (typeof v === 'string' && /^-?\d+$/.test(v)) n = BigInt(v);
  else throw new JsonShapeError('expected an integer, as a JSON number or a decimal string');
  if (n < min || n > max) throw new JsonShapeError(`expected an integer from ${min} to ${max}`);
  return n;
}

/** An integer (one unknown here reads as the default), or the value's name as the Collector allows. */
function enumValue<T extends number>(v: unknown, values: readonly T[], names: readonly string[]): T {
  if (typeof v === 'number' && Number.isInteger(v)) return values[v] ?? values[0]!;
  const index = typeof v === 'string' ? names.indexOf(v) : -1;
  if (index !== -1) return values[index]!;
  throw new JsonShapeError('expected an enum value as an integer');
}
