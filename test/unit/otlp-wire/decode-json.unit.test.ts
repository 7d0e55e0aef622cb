import { describe, expect, it } from 'vitest';
import { maxValueDepth } from '../../../api/otlp/decode-common.ts';
import { decodeJson } from '../../../api/otlp/decode-json.ts';
import { decodeProtobuf } from '../../../api/otlp/decode-protobuf.ts';
import { OtlpError } from '../../../api/otlp/errors.ts';
import { everyKind, maxUint64, request, span, toOtlpJson, toProtobuf } from '../../harness/otlp-fixtures.ts';

function invalid(body: string): OtlpError {
  try {
    decodeJson(body);
  } catch (error) {
    if (error instanceof OtlpError) return error;
    throw error;
  }
  throw new Error('decoded without an error');
}

/** A JSON request with one span whose fields are `spanJson`. */
const withSpan = (spanJson: object) =>
  JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [spanJson] }] }] });
const firstSpan = (body: string) => decodeJson(body).resourceSpans[0]?.scopeSpans[0]?.spans[0];

describe('decodeJson: the same request as protobuf gives the same result', () => {
  const expected = request([span(), span({ spanId: 'eee19b7ec3c1b175', kind: 1 })]);

  it.each(['string', 'number'] as const)('with int64 values as JSON %ss', (int64As) => {
    const json = toOtlpJson(expected, int64As);
    expect(decodeJson(json)).toEqual(expected);
    expect(decodeJson(json)).toEqual(decodeProtobuf(toProtobuf(expected)));
  });

  it('from a Buffer as from a string, a UTF-8 byte order mark tolerated', () => {
    const json = toOtlpJson(expected, 'string');
    expect(decodeJson(Buffer.from(`\uFEFF${json}`, 'utf8'))).toEqual(expected);
  });

  it('keeps every digit of int64 JSON numbers past 2^53', () => {
    const exact =
      '{"resourceSpans":[{"scopeSpans":[{"spans":[' +
      '{"startTimeUnixNano": 1700000000123456789 , "endTimeUnixNano":18446744073709551615}]}]}]}';
    expect(firstSpan(exact)).toMatchObject({
      startTimeUnixNano: 1_700_000_000_123_456_789n,
      endTimeUnixNano: maxUint64,
    });
  });

  it.each(everyKind.map((kv) => [kv.value.kind, kv] as const))(
    'reads an AnyValue of kind %s',
    (_kind, kv) => {
      const json = toOtlpJson(request([span({ attributes: [kv] })]), 'string');
      expect(decodeJson(json).resourceSpans[0]?.scopeSpans[0]?.spans[0]?.attributes).toEqual([kv]);
    },
  );
});

describe('decodeJson: what OTLP/JSON allows', () => {
  it.each([
    ['an empty object', '{}'],
    ['empty resourceSpans', '{"resourceSpans":[]}'],
    ['null resourceSpans', '{"resourceSpans":null}'],
  ])('%s is a request without spans', (_name, body) => {
    expect(decodeJson(body)).toEqual({ resourceSpans: [] });
  });

  it('tolerates empty ids and lowercases upper-case hex', () => {
    expect(firstSpan(withSpan({ traceId: '', spanId: 'EEE19B7EC3C1B174' }))).toMatchObject({
      traceId: '',
      spanId: 'eee19b7ec3c1b174',
    });
  });

  it('ignores unknown fields, and takes null as unset', () => {
    const decoded = firstSpan(
      withSpan({ name: 'x', somethingNew: { a: [1] }, flags: 1, status: null, kind: null }),
    );
    expect(decoded).toMatchObject({ name: 'x', status: { code: 0, message: '' }, kind: 0 });
  });

  it('takes the original snake_case field names, as the Collector does', () => {
    const decoded = firstSpan(
      withSpan({
        trace_id: 'aa',
        start_time_unix_nano: '7',
        attributes: [{ key: 'k', value: { int_value: 3 } }],
      }),
    );
    expect(decoded).toMatchObject({
      traceId: 'aa',
      startTimeUnixNano: 7n,
      attributes: [{ key: 'k', value: { kind: 'int', value: 3n } }],
    });
  });

  it.each([
    ['kind', 2, 2],
    ['kind', 'SPAN_KIND_CONSUMER', 5],
    ['kind', 42, 0],
    ['status', { code: 'STATUS_CODE_ERROR' }, 2],
    ['status', { code: 1 }, 1],
  ])('reads enum %s %j', (field, value, expected) => {
    const decoded = firstSpan(withSpan({ [field]: value }));
    expect(field === 'kind' ? decoded?.kind : decoded?.status.code).toBe(expected);
  });

  it.each([
    ['a number', 0.25, 0.25],
    ['"NaN"', 'NaN', Number.NaN],
    ['"Infinity"', 'Infinity', Number.POSITIVE_INFINITY],
    ['"-Infinity"', '-Infinity', Number.NEGATIVE_INFINITY],
    ['a numeric string', '1.5', 1.5],
  ])('reads a doubleValue as %s', (_name, doubleValue, expected) => {
    const decoded = firstSpan(withSpan({ attributes: [{ key: 'd', value: { doubleValue } }] }));
    expect(decoded?.attributes[0]?.value).toEqual({ kind: 'double', value: expected });
  });

  it('reads bytesValue in base64 and in URL-safe base64', () => {
    const decoded = firstSpan(
      withSpan({
        attributes: [
          { key: 'a', value: { bytesValue: 'AP8Q' } },
          { key: 'b', value: { bytesValue: '_-8=' } },
        ],
      }),
    );
    expect(decoded?.attributes.map((a) => a.value)).toEqual([
      { kind: 'bytes', value: new Uint8Array([0, 255, 16]) },
      { kind: 'bytes', value: new Uint8Array([255, 239]) },
    ]);
  });
});

describe('decodeJson: what is not an ExportTraceServiceRequest is invalid_otlp', () => {
  it.each([
    ['an array', '[]', 'expected an object, got an array'],
    ['a string', '"hello"', 'expected an object, got string'],
    ['null', 'null', 'expected an object'],
    ['not JSON', '{"resourceSpans": [', 'not valid JSON'],
    ['the empty body', '', 'not valid JSON'],
    ['resourceSpans as an object', '{"resourceSpans":{}}', 'resourceSpans: expected an array'],
    ['a span as an array', withSpan([]), 'spans[0]: expected an object'],
    ['a non-hex trace id', withSpan({ traceId: 'xyz' }), 'spans[0].traceId: expected an id as a hex string'],
    ['an odd-length span id', withSpan({ spanId: 'abc' }), 'spanId: expected an id as a hex string'],
    ['a base64 trace id', withSpan({ traceId: 'W47/95gDgQPSabYzgT/GDA==' }), 'traceId: expected an id'],
    ['a name as a number', withSpan({ name: 5 }), 'spans[0].name: expected a string, got number'],
    [
      'a time with a fraction',
      withSpan({ startTimeUnixNano: '1.5' }),
      'startTimeUnixNano: expected an integer',
    ],
    ['a negative time', withSpan({ endTimeUnixNano: '-1' }), 'endTimeUnixNano: expected an integer from 0'],
    [
      'a time past 2^64 - 1',
      withSpan({ endTimeUnixNano: '18446744073709551616' }),
      'expected an integer from 0',
    ],
    [
      'an intValue past 2^63 - 1',
      withSpan({ attributes: [{ key: 'k', value: { intValue: '9223372036854775808' } }] }),
      'attributes[0].value.intValue',
    ],
    [
      'a boolValue as a string',
      withSpan({ attributes: [{ key: 'k', value: { boolValue: 'true' } }] }),
      'boolValue: expected true or false',
    ],
    [
      'bytesValue not base64',
      withSpan({ attributes: [{ key: 'k', value: { bytesValue: '%%' } }] }),
      'bytesValue: expected a base64',
    ],
    ['an unknown enum name', withSpan({ kind: 'SPAN_KIND_SIDEWAYS' }), 'kind: expected an enum'],
    ['a dropped count past 2^32 - 1', withSpan({ droppedLinksCount: 4294967296 }), 'droppedLinksCount'],
    ['an int64 number in exponent form past 2^53', withSpan({ startTimeUnixNano: 1e300 }), 'beyond 2^53'],
  ])('refuses %s', (_name, body, detail) => {
    const error = invalid(body);
    expect(error.code).toBe('invalid_otlp');
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^invalid_otlp: /);
    expect(error.message).toContain(detail);
  });

  it('names the full path of the wrong value', () => {
    const body = JSON.stringify({
      resourceSpans: [
        {},
        {
          scopeSpans: [
            {
              spans: [
                {},
                {
                  events: [
                    { attributes: [{ key: 'k', value: { arrayValue: { values: [{ intValue: 'x' }] } } }] },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
    expect(invalid(body).message).toContain(
      'resourceSpans[1].scopeSpans[0].spans[1].events[0].attributes[0].value.arrayValue.values[0].intValue: expected an integer',
    );
  });

  it(`refuses AnyValue nested deeper than ${maxValueDepth}`, () => {
    let value: object = { stringValue: 'bottom' };
    for (let i = 0; i <= maxValueDepth; i++) value = { arrayValue: { values: [value] } };
    expect(invalid(withSpan({ attributes: [{ key: 'deep', value }] })).message).toContain('nested deeper');
  });

  it('says what was wrong without echoing the body', () => {
    const secret = 'sk-live-'.repeat(100_000);
    for (const body of [
      withSpan({ name: { secret } }),
      `{"resourceSpans": "${secret}`,
      withSpan({ traceId: secret }),
    ]) {
      const error = invalid(body);
      expect(error.message).not.toContain('sk-live-');
      expect(error.message.length).toBeLessThan(600);
    }
  });
});
