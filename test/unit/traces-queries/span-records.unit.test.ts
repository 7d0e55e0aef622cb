import { describe, expect, it } from 'vitest';
import { framedPayload } from '../../../platform/registry.ts';
import { spanRecordOf } from '../../../projections/spans-rowbinary.ts';
import { spanEventBytes } from '../../harness/span-records.ts';

// The spans projection reads a span event's envelope from its bytes; what spanEventFromWire
// refuses, it refuses too (undefined: the dead-letter topic), and bytes that are no event throw.

const at = Date.UTC(2026, 10, 20);
const trace = (traceId: string) => ({ traceId, traceFirstReceivedAtMs: at, spans: [{ spanId: 's' }] });

describe('a span event read from its bytes', () => {
  it('reads a deletion as its org and trace', () => {
    const value = spanEventBytes({ eventId: 'e', orgId: 'o', traceId: 't', traceDeleted: {} });
    expect(spanRecordOf(value)).toEqual({ type: 'TraceDeleted', orgId: 'o', traceId: 't' });
  });

  it('keeps received spans as the bytes they came in', () => {
    const value = spanEventBytes({ eventId: 'e', orgId: 'o', tracesReceived: { traces: [trace('t')] } });
    expect(spanRecordOf(value)).toMatchObject({ type: 'SpansReceived', orgId: 'o' });
  });

  it.each([
    ['no event id', { orgId: 'o', traceId: 't', traceDeleted: {} }],
    ['no org id', { eventId: 'e', traceId: 't', traceDeleted: {} }],
    ['a deletion of no trace', { eventId: 'e', orgId: 'o', traceDeleted: {} }],
    [
      'one-trace spans of no trace',
      { eventId: 'e', orgId: 'o', spansReceived: { spans: [{ spanId: 's' }] } },
    ],
    [
      'a trace with an empty id',
      { eventId: 'e', orgId: 'o', tracesReceived: { traces: [trace('t'), trace('')] } },
    ],
    ['no event at all', { eventId: 'e', orgId: 'o' }],
  ])('refuses %s', (_, wire) => {
    expect(spanRecordOf(spanEventBytes(wire))).toBeUndefined();
  });

  it('throws on bytes that are not a framed span event', () => {
    expect(() => spanRecordOf(Buffer.from('{"not":"protobuf"}'))).toThrow('magic byte');
    const cut = spanEventBytes({ eventId: 'e', orgId: 'o', tracesReceived: { traces: [trace('t')] } });
    expect(() => spanRecordOf(cut.subarray(0, cut.length - 3))).toThrow();
  });
});

describe("a Confluent frame's message-index path", () => {
  const framed = (...path: number[]) => Buffer.from([0, 0, 0, 0, 7, ...path, 0x0a]);
  it.each([
    ['the first message, as one 0', framed(0), 6],
    ['a path of one index, 3 (zigzag 6)', framed(2, 6), 7],
    ['a path of two indexes', framed(4, 2, 8), 8],
  ])('skips %s', (_, value, payloadAt) => {
    expect(framedPayload(value)).toBe(payloadAt);
  });

  it('refuses a value cut inside its path', () => {
    expect(() => framedPayload(Buffer.from([0, 0, 0, 0, 7, 4, 2]))).toThrow('ends inside');
  });
});
