import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { maxValueDepth } from '../../../api/otlp/decode-common.ts';
import { decodeProtobuf } from '../../../api/otlp/decode-protobuf.ts';
import { OtlpError } from '../../../api/otlp/errors.ts';
import { everyKind, request, requestType, span, toProtobuf } from '../../harness/otlp-fixtures.ts';

function invalid(bytes: Buffer): OtlpError {
  try {
    decodeProtobuf(bytes);
  } catch (error) {
    if (error instanceof OtlpError) return error;
    throw error;
  }
  throw new Error('decoded without an error');
}

const writer = () => protobuf.Writer.create();

/** A request with one span: name 'x', then the given raw bytes. */
function withSpanBytes(extra: Uint8Array | number[]): Buffer {
  const spanBytes = Buffer.concat([writer().uint32(42).string('x').finish(), Buffer.from(extra)]);
  const scopeSpans = writer().uint32(18).bytes(spanBytes).finish();
  const resourceSpans = writer().uint32(18).bytes(scopeSpans).finish();
  return Buffer.from(writer().uint32(10).bytes(resourceSpans).finish());
}

/** A span attribute whose value is a string inside `levels` nested arrays (encoded by hand:
 * protobufjs's own encoder stops at its nesting limit). */
function nestedAttribute(levels: number): Buffer {
  let value = writer().uint32(10).string('bottom').finish();
  for (let i = 0; i < levels; i++) {
    value = writer().uint32(42).bytes(writer().uint32(10).bytes(value).finish()).finish();
  }
  const keyValue = writer().uint32(10).string('deep').uint32(18).bytes(value).finish();
  return withSpanBytes(writer().uint32(74).bytes(keyValue).finish());
}

describe('decodeProtobuf: round trips through protobufjs and the vendored protos', () => {
  it('gives back the typed request the exporter encoded', () => {
    const expected = request([span(), span({ spanId: 'eee19b7ec3c1b175', kind: 1, attributes: [] })]);
    expect(decodeProtobuf(toProtobuf(expected))).toEqual(expected);
  });

  it.each(everyKind.map((kv) => [kv.value.kind, kv] as const))(
    'reads an AnyValue of kind %s',
    (_kind, kv) => {
      const decoded = decodeProtobuf(toProtobuf(request([span({ attributes: [kv] })])));
      expect(decoded.resourceSpans[0]?.scopeSpans[0]?.spans[0]?.attributes).toEqual([kv]);
    },
  );

  it.each([
    ['zero', 0n],
    ['2^53 + 1, not representable as a double', 2n ** 53n + 1n],
    ['2^63', 2n ** 63n],
    ['2^64 - 1', 2n ** 64n - 1n],
  ])('keeps a fixed64 time of %s exactly', (_name, time) => {
    const decoded = decodeProtobuf(toProtobuf(request([span({ startTimeUnixNano: time })])));
    expect(decoded.resourceSpans[0]?.scopeSpans[0]?.spans[0]?.startTimeUnixNano).toBe(time);
  });

  it.each([
    ['empty', '', ''],
    ['3 bytes', 'abcdef', '010203'],
    ['17 bytes', `${'ab'.repeat(16)}cd`, '0102'],
  ])(
    'keeps a trace id of the wrong length (%s) as hex, for admission to refuse',
    (_name, traceId, spanId) => {
      const decoded = decodeProtobuf(toProtobuf(request([span({ traceId, spanId })])));
      expect(decoded.resourceSpans[0]?.scopeSpans[0]?.spans[0]).toMatchObject({ traceId, spanId });
    },
  );

  it('writes ids in lowercase hex', () => {
    const decoded = decodeProtobuf(toProtobuf(request([span({ spanId: 'ABCDEF0123456789' })])));
    expect(decoded.resourceSpans[0]?.scopeSpans[0]?.spans[0]?.spanId).toBe('abcdef0123456789');
  });

  it('decodes an empty body as a request without spans (which succeeds)', () => {
    expect(decodeProtobuf(Buffer.alloc(0))).toEqual({ resourceSpans: [] });
  });

  it('fills absent messages with their defaults', () => {
    const bytes = Buffer.from(
      requestType.encode({ resourceSpans: [{ scopeSpans: [{ spans: [{}] }] }] }).finish(),
    );
    expect(decodeProtobuf(bytes)).toEqual({
      resourceSpans: [
        {
          resource: { attributes: [], droppedAttributesCount: 0 },
          schemaUrl: '',
          scopeSpans: [
            {
              scope: { name: '', version: '', attributes: [] },
              schemaUrl: '',
              spans: [
                span({
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
                  status: { code: 0, message: '' },
                }),
              ],
            },
          ],
        },
      ],
    });
  });

  it('copies bytes values out of the body, so a kept value does not pin the whole body', () => {
    const bytes = toProtobuf(request([span({ attributes: [everyKind[8]!] })]));
    const value = decodeProtobuf(bytes).resourceSpans[0]?.scopeSpans[0]?.spans[0]?.attributes[0]?.value;
    bytes.fill(0);
    expect(value).toEqual({ kind: 'bytes', value: new Uint8Array([0, 255, 16]) });
  });

  it.each([
    ['an unknown field (flags, 16, fixed32)', [0x85, 0x01, 1, 0, 0, 0]],
    ['an unknown length-delimited field (99)', [0x9a, 0x06, 2, 0x41, 0x42]],
    ['a known field with another wire type (name as a varint)', [0x28, 0x07]],
  ])('skips %s', (_name, extra) => {
    const decoded = decodeProtobuf(withSpanBytes(extra));
    expect(decoded.resourceSpans[0]?.scopeSpans[0]?.spans[0]?.name).toBe('x');
  });

  it.each([
    ['a span kind', 'kind', 9, 0],
    ['a status code', 'status', 7, 0],
  ])('reads an unknown value of %s as unspecified', (_name, field, value, expected) => {
    const wire = field === 'kind' ? { kind: value } : { status: { code: value } };
    const bytes = Buffer.from(
      requestType.encode({ resourceSpans: [{ scopeSpans: [{ spans: [wire] }] }] }).finish(),
    );
    const decoded = decodeProtobuf(bytes).resourceSpans[0]?.scopeSpans[0]?.spans[0];
    expect(field === 'kind' ? decoded?.kind : decoded?.status.code).toBe(expected);
  });
});

describe('decodeProtobuf: what is not an ExportTraceServiceRequest is invalid_otlp', () => {
  const valid = toProtobuf(request());

  it('refuses every truncation of a one-resource request', () => {
    for (let length = 1; length < valid.length; length++) {
      expect(invalid(valid.subarray(0, length)).code, `cut at ${length} bytes`).toBe('invalid_otlp');
    }
  });

  it.each([
    ['an invalid wire type (7)', Buffer.from([0x0f])],
    ['field number 0', Buffer.from([0x00, 0x01])],
    ['an end-group without a start', Buffer.from([0x0c])],
    ['a length past the end', Buffer.from([0x0a, 0x7f, 0x00])],
    // An attribute { key: 'k', value: { intValue: <11-byte varint> } }.
    [
      'an int64 varint longer than 10 bytes',
      withSpanBytes([0x4a, 17, 0x0a, 1, 0x6b, 0x12, 12, 0x18, ...Array(10).fill(0xff), 1]),
    ],
  ])('refuses %s', (_name, bytes) => {
    const error = invalid(bytes);
    expect(error.code).toBe('invalid_otlp');
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^invalid_otlp: /);
  });

  it('refuses a field that runs past the end of its enclosing message', () => {
    // A span of 6 bytes whose name claims 5 bytes where 4 are left: inside the body, past the span.
    const bytes = Buffer.from([0x0a, 10, 0x12, 8, 0x12, 6, 0x2a, 5, 0x61, 0x62, 0x63, 0x64, 0x0a, 0x00]);
    expect(invalid(bytes).message).toContain('runs past the end');
  });

  it(`reads AnyValue nested ${maxValueDepth} deep, and refuses one level more`, () => {
    const decoded = decodeProtobuf(nestedAttribute(maxValueDepth));
    let value = decoded.resourceSpans[0]?.scopeSpans[0]?.spans[0]?.attributes[0]?.value;
    for (let i = 0; i < maxValueDepth; i++) value = value?.kind === 'array' ? value.values[0] : undefined;
    expect(value).toEqual({ kind: 'string', value: 'bottom' });
    expect(invalid(nestedAttribute(maxValueDepth + 1)).message).toContain('nested deeper');
  });

  it('says what was wrong without echoing the body', () => {
    const secret = 'sk-live-'.repeat(1000);
    const bytes = Buffer.concat([toProtobuf(request([span({ name: secret })])), Buffer.from([0x0f])]);
    const error = invalid(bytes);
    expect(error.message).not.toContain('sk-live-');
    expect(error.message.length).toBeLessThan(600);
  });
});
