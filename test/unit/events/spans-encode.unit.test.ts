import { describe, expect, it } from 'vitest';
import type { PublishedSpan, SpanEvent } from '../../../domain/tracing/events.ts';
import { framedPayload, frameHeader, wireObjectOptions } from '../../../platform/registry.ts';
import { valueType } from '../../../schemas/events/index.ts';
import { encodeSpanEvent } from '../../../schemas/events/spans-encode.ts';
import { spanEventFromWire } from '../../../schemas/events/spans-mapping.ts';
import { publishedSpan } from '../../harness/spans.ts';

// The span events' writer against protobufjs's reader, which consumers use: every length where
// the writer changes how it writes (a string's one-byte length, a message moved along for a longer
// one, the buffer grown), and what it must refuse.

const type = valueType('spans');
const at = new Date('2026-11-29T10:00:00.123Z');

/** The event written with schema id 7 and read back as consumers read it. */
function roundTrip(event: SpanEvent): SpanEvent | undefined {
  const bytes = encodeSpanEvent(event, frameHeader(7));
  expect([...bytes.subarray(0, 6)]).toEqual([0, 0, 0, 0, 7, 0]);
  return spanEventFromWire(
    type.toObject(type.decode(bytes.subarray(framedPayload(bytes))), wireObjectOptions),
  );
}

const received = (spans: PublishedSpan[], traceId = '0af7651916cd43dd8448eb211c80319c'): SpanEvent => ({
  type: 'SpansReceived',
  eventId: 'e6b0f6a2-1111-4222-8333-944455556666',
  orgId: 'org_1',
  occurredAt: at,
  traces: [
    {
      traceId,
      traceFirstReceivedAt: new Date('2026-11-28T00:00:00Z'),
      spans: spans.map((span) => ({ ...span, traceId })),
    },
  ],
});

describe('span events written for Kafka', () => {
  it.each([
    ['empty', ''],
    ['42 ASCII characters, the last with a one-byte length for any text', 'a'.repeat(42)],
    ['43 ASCII characters', 'a'.repeat(43)],
    ['two-byte characters to 126 bytes', 'é'.repeat(63)],
    ['three-byte characters past 127 bytes', '€'.repeat(43)],
    ['127 bytes', 'x'.repeat(127)],
    ['128 bytes', 'x'.repeat(128)],
    ['16,383 bytes', 'x'.repeat(16_383)],
    ['16,384 bytes', 'x'.repeat(16_384)],
    ['surrogate pairs', '🙂'.repeat(40)],
    ['a lone surrogate, as U+FFFD', 'a\ud800b'],
  ])('keeps a text of %s', (_, text) => {
    const span = publishedSpan({ name: text, input: text, statusMessage: text, model: text });
    const expected = text === 'a\ud800b' ? 'a\ufffdb' : text;
    expect(roundTrip(received([span]))).toEqual(
      received([{ ...span, name: expected, input: expected, statusMessage: expected, model: expected }]),
    );
  });

  it.each([
    ['a message with a one-byte length', 1],
    ['a message just past a one-byte length', 2],
    ['a message past a two-byte length', 90],
    ['a message past a three-byte length (grown from a small guess)', 12_000],
  ])('keeps %s', (_, spanCount) => {
    const spans = Array.from({ length: spanCount }, (_, index) =>
      publishedSpan({
        spanId: index.toString(16).padStart(16, '0'),
        attributes: `{"i":${index}}`,
        sizeBytes: 0,
      }),
    );
    expect(roundTrip(received(spans))).toEqual(received(spans));
  });

  it('keeps null apart from empty, and every number at its edges', () => {
    const edges = publishedSpan({
      model: '',
      sessionId: null,
      userId: '',
      input: null,
      output: '',
      inputTokens: 0,
      outputTokens: Number.MAX_SAFE_INTEGER,
      cachedInputTokens: 0,
      reasoningTokens: Number.MAX_SAFE_INTEGER,
      costNanoUsd: 0,
      startTimeUnixNano: 0n,
      endTimeUnixNano: 0xffff_ffff_ffff_ffffn,
      otelKind: 5,
      statusCode: 0,
      redactedCount: 0,
      inputTruncated: true,
      outputTruncated: false,
      sizeBytes: 2 ** 40,
    });
    const nulls = publishedSpan({ model: null, inputTokens: null, outputTokens: null, environment: null });
    expect(roundTrip(received([edges, nulls]))).toEqual(received([edges, nulls]));
  });

  it('keeps several traces apart, their admission group, and a deletion', () => {
    const event: SpanEvent = {
      type: 'SpansReceived',
      eventId: 'e',
      orgId: 'o',
      occurredAt: at,
      traces: [
        {
          traceId: 'a'.repeat(32),
          traceFirstReceivedAt: at,
          spans: [publishedSpan({ traceId: 'a'.repeat(32), spanId: '1'.repeat(16) })],
        },
        { traceId: 'b'.repeat(32), traceFirstReceivedAt: new Date(0), spans: [] },
      ],
    };
    expect(roundTrip(event)).toEqual(event);
    // With its admission group, as the API writes it now; without, as written before.
    const grouped: SpanEvent = { ...event, admissionId: '4a0c3d7e-5b8f-4e2a-9c1d-2f3e4a5b6c7d' };
    expect(roundTrip(grouped)).toEqual(grouped);
    const deleted: SpanEvent = {
      type: 'TraceDeleted',
      eventId: 'e',
      orgId: 'o',
      traceId: 'c'.repeat(32),
      occurredAt: at,
    };
    expect(roundTrip(deleted)).toEqual(deleted);
  });

  it.each([
    ['a negative count', { inputTokens: -1 }, 'not a non-negative safe integer'],
    ['a count past 2^53', { outputTokens: 2 ** 53 }, 'not a non-negative safe integer'],
    ['a fraction', { redactedCount: 1.5 }, 'not a non-negative safe integer'],
    ['a time past 64 bits', { endTimeUnixNano: 2n ** 64n }, 'does not fit a fixed64'],
  ])('refuses %s rather than writing another number', (_, overrides, message) => {
    expect(() => encodeSpanEvent(received([publishedSpan(overrides)]), frameHeader(7))).toThrow(message);
  });
});
