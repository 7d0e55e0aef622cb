// Builders for the reading tests: OTLP key-values from plain values, as an exporter would send them
// (integers as int, other numbers as double, objects as kvlist), and an OTLP span with defaults.

import type { AnyValue, KeyValue, OtlpEvent, OtlpSpan } from '../../../domain/tracing/otlp.ts';

export type Plain =
  | string
  | number
  | bigint
  | boolean
  | null
  | Uint8Array
  | Plain[]
  | { [key: string]: Plain };

export function anyValue(value: Plain): AnyValue {
  if (value === null) return { kind: 'empty' };
  if (typeof value === 'string') return { kind: 'string', value };
  if (typeof value === 'boolean') return { kind: 'bool', value };
  if (typeof value === 'bigint') return { kind: 'int', value };
  if (typeof value === 'number') {
    return Number.isInteger(value) ? { kind: 'int', value: BigInt(value) } : { kind: 'double', value };
  }
  if (value instanceof Uint8Array) return { kind: 'bytes', value };
  if (Array.isArray(value)) return { kind: 'array', values: value.map(anyValue) };
  return { kind: 'kvlist', values: attrs(value) };
}

export function attrs(values: { [key: string]: Plain }): KeyValue[] {
  return Object.entries(values).map(([key, value]) => ({ key, value: anyValue(value) }));
}

export function double(value: number): AnyValue {
  return { kind: 'double', value };
}

export function event(name: string, values: { [key: string]: Plain } = {}, timeUnixNano = 0n): OtlpEvent {
  return { name, timeUnixNano, attributes: attrs(values), droppedAttributesCount: 0 };
}

export function otlpSpan(overrides: Partial<OtlpSpan> = {}): OtlpSpan {
  return {
    traceId: '5b8efff798038103d269b633813fc60c',
    spanId: 'eee19b7ec3c1b174',
    parentSpanId: '',
    traceState: '',
    name: 'span',
    kind: 1,
    startTimeUnixNano: 1_700_000_000_000_000_000n,
    endTimeUnixNano: 1_700_000_001_000_000_000n,
    attributes: [],
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    links: [],
    droppedLinksCount: 0,
    status: { code: 0, message: '' },
    ...overrides,
  };
}

/** The keys left after reading, to check what a convention consumed. */
export function keys(attributes: readonly KeyValue[]): string[] {
  return attributes.map((attribute) => attribute.key);
}
