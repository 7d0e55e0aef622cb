import { describe, expect, it } from 'vitest';
import { limits } from '../../../domain/tracing/limits.ts';
import type { JsonValue, StoredSpan } from '../../../domain/tracing/span.ts';
import { limitSpan, storedSpanBytes } from '../../../domain/tracing/truncation.ts';
import { storedSpan } from '../../harness/spans.ts';

const KiB = 1024;
const bytes = (text: string): number => Buffer.byteLength(text);

/** A generation span with a model, tokens, input and output: every text field set but four. */
const span = (overrides: Partial<StoredSpan> = {}): StoredSpan =>
  storedSpan({
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    name: 'chat gpt-4o',
    kind: 'generation',
    otelKind: 3,
    startTimeUnixNano: 1_700_000_000_000_000_000n,
    endTimeUnixNano: 1_700_000_001_000_000_000n,
    model: 'gpt-4o',
    inputTokens: 10,
    outputTokens: 20,
    cachedInputTokens: 4,
    reasoningTokens: 5,
    costNanoUsd: 225_000,
    input: '{"value":"hi"}',
    output: '{"value":"hello"}',
    serviceName: 'api',
    scopeName: 'scope',
    scopeVersion: '1.0.0',
    ...overrides,
  });

const attributesOf = (count: number, value: (i: number) => JsonValue = (i) => `v${i}`): string =>
  JSON.stringify(Object.fromEntries(Array.from({ length: count }, (_, i) => [`key.${i}`, value(i)])));
const event = (i: number, attributes: Record<string, JsonValue> = {}): JsonValue => ({
  name: `event ${i}`,
  time_unix_nano: '1700000000000000000',
  attributes,
});
const link = (i: number): JsonValue => ({
  trace_id: '0af7651916cd43dd8448eb211c80319c',
  span_id: i.toString(16).padStart(16, '0'),
  trace_state: '',
  attributes: {},
});
const parse = (text: string): JsonValue => JSON.parse(text);

describe('storedSpanBytes', () => {
  it('is the UTF-8 bytes of every text field plus 64 for the numeric ones', () => {
    const s = span({ name: 'é', statusMessage: '😀' });
    const text = [
      s.traceId,
      s.spanId,
      s.name,
      s.kind,
      s.statusMessage,
      s.model,
      s.input,
      s.output,
      s.serviceName,
      s.attributes,
      s.events,
      s.links,
      s.resourceAttributes,
      s.scopeName,
      s.scopeVersion,
    ].join('');
    expect(storedSpanBytes(s)).toBe(64 + bytes(text));
  });

  it('counts every text field, set or null', () => {
    const s = span({});
    const textFields = Object.entries(s).filter(([, value]) => typeof value === 'string' || value === null);
    expect(textFields.length).toBe(19);
    for (const [field, value] of textFields) {
      expect(storedSpanBytes({ ...s, [field]: `${value ?? ''}x` }) - storedSpanBytes(s), field).toBe(1);
    }
  });
});

describe('limitSpan: strings', () => {
  it.each([
    [256, false],
    [257, true],
  ])('a span name of %d bytes is cut: %s', (length, cut) => {
    const name = limitSpan(span({ name: 'n'.repeat(length) })).name;
    expect(bytes(name)).toBeLessThanOrEqual(256);
    expect(name.endsWith('bytes]')).toBe(cut);
  });

  it.each([
    ['statusMessage', 8 * KiB, false],
    ['statusMessage', 8 * KiB + 1, true],
    ['model', 8 * KiB + 1, true],
    ['sessionId', 8 * KiB + 1, true],
    ['userId', 8 * KiB, false],
    ['scopeName', 8 * KiB + 1, true],
  ] as const)('%s of %d bytes is cut: %s', (field, length, cut) => {
    const value = limitSpan(span({ [field]: 's'.repeat(length) }))[field] ?? '';
    expect(bytes(value)).toBeLessThanOrEqual(8 * KiB);
    expect(value.endsWith('bytes]')).toBe(cut);
  });

  it.each([
    [8 * KiB, false],
    [8 * KiB + 1, true],
  ])('an attribute string of %d bytes, nested or not, is cut: %s', (length, cut) => {
    const long = 'a'.repeat(length);
    const limited = limitSpan(span({ attributes: JSON.stringify({ flat: long, list: ['x', long] }) }));
    const attributes = parse(limited.attributes) as { flat: string; list: string[] };
    expect(attributes.flat.endsWith('bytes]')).toBe(cut);
    expect(attributes.list[1]!.endsWith('bytes]')).toBe(cut);
    expect(attributes.list[0]).toBe('x');
  });

  it('leaves input and output of 100 KiB alone (cut by the caller to 128 KiB)', () => {
    const input = JSON.stringify({ value: 'i'.repeat(100 * KiB) });
    const limited = limitSpan(span({ input, output: input }));
    expect(limited.input).toBe(input);
    expect(limited.output).toBe(input);
    expect(limited.inputTruncated).toBe(false);
  });

  it('cuts event names and event attribute strings to 8 KiB', () => {
    const long = 'e'.repeat(8 * KiB + 1);
    const events = JSON.stringify([{ ...(event(0) as object), name: long, attributes: { msg: long } }]);
    const [first] = parse(limitSpan(span({ events })).events) as {
      name: string;
      attributes: { msg: string };
    }[];
    expect(bytes(first!.name)).toBeLessThanOrEqual(8 * KiB);
    expect(first!.attributes.msg.endsWith('bytes]')).toBe(true);
  });
});

describe('limitSpan: counts', () => {
  it.each([
    [128, 128],
    [129, 128],
  ])('%d attributes keep the first %d in order', (sent, kept) => {
    const keys = Object.keys(parse(limitSpan(span({ attributes: attributesOf(sent) })).attributes) as object);
    expect(keys).toEqual(Array.from({ length: kept }, (_, i) => `key.${i}`));
  });

  it.each([
    [128, 128],
    [129, 128],
  ])('%d events keep the first %d in order', (sent, kept) => {
    const events = JSON.stringify(Array.from({ length: sent }, (_, i) => event(i)));
    const limited = parse(limitSpan(span({ events })).events) as { name: string }[];
    expect(limited.map((e) => e.name)).toEqual(Array.from({ length: kept }, (_, i) => `event ${i}`));
  });

  it.each([
    [128, 128],
    [129, 128],
  ])('an event with %d attributes keeps %d', (sent, kept) => {
    const events = JSON.stringify([event(0, parse(attributesOf(sent)) as Record<string, JsonValue>)]);
    const [first] = parse(limitSpan(span({ events })).events) as { attributes: object }[];
    expect(Object.keys(first!.attributes)).toHaveLength(kept);
  });

  it.each([
    [32, 32],
    [33, 32],
  ])('%d links keep the first %d', (sent, kept) => {
    const links = JSON.stringify(Array.from({ length: sent }, (_, i) => link(i)));
    const limited = parse(limitSpan(span({ links })).links) as { span_id: string }[];
    expect(limited).toHaveLength(kept);
    expect(limited.at(-1)!.span_id).toBe((kept - 1).toString(16).padStart(16, '0'));
  });
});

describe('limitSpan: resource attributes', () => {
  // {"service.name":"api","pad":"…"} padded so the whole object is `total` bytes.
  const resourceOf = (total: number, extra: Record<string, string> = {}): string => {
    const base = JSON.stringify({ 'service.name': 'api', pad: '' });
    return JSON.stringify({ 'service.name': 'api', pad: 'p'.repeat(total - bytes(base)), ...extra });
  };

  it('keeps a resource of exactly 4 KiB whole', () => {
    const resourceAttributes = resourceOf(4 * KiB);
    expect(bytes(resourceAttributes)).toBe(4 * KiB);
    expect(limitSpan(span({ resourceAttributes })).resourceAttributes).toBe(resourceAttributes);
  });

  it('drops from the first attribute that would take it past 4 KiB, keeping the order', () => {
    const resourceAttributes = resourceOf(4 * KiB - 20, { 'host.name': 'a-long-host-name', z: '1' });
    const limited = limitSpan(span({ resourceAttributes })).resourceAttributes;
    expect(bytes(limited)).toBeLessThanOrEqual(4 * KiB);
    expect(Object.keys(parse(limited) as object)).toEqual(['service.name', 'pad']);
  });
});

describe('limitSpan: whole span at 384 KiB', () => {
  const fourKiBEvents = (count: number): string =>
    JSON.stringify(Array.from({ length: count }, (_, i) => event(i, { body: 'b'.repeat(4000) })));

  it('leaves a span under 384 KiB whole', () => {
    const s = span({ events: fourKiBEvents(50), attributes: attributesOf(100) });
    const limited = limitSpan(s);
    expect(limited).toEqual(s);
  });

  it('drops trailing events first, keeping attributes and links', () => {
    const attributes = attributesOf(100, () => 'a'.repeat(1000));
    const links = JSON.stringify([link(1)]);
    const limited = limitSpan(span({ events: fourKiBEvents(128), attributes, links }));
    const events = parse(limited.events) as { name: string }[];
    expect(storedSpanBytes(limited)).toBeLessThanOrEqual(limits.spanBytes);
    expect(events.length).toBeGreaterThan(60);
    expect(events.length).toBeLessThan(128);
    expect(events.at(-1)!.name).toBe(`event ${events.length - 1}`);
    expect(limited.attributes).toBe(attributes);
    expect(limited.links).toBe(links);
  });

  it('then drops links and trailing attributes when events are not enough', () => {
    const attributes = attributesOf(128, () => 'a'.repeat(8 * KiB));
    const limited = limitSpan(
      span({ events: fourKiBEvents(10), links: JSON.stringify([link(1)]), attributes }),
    );
    const keys = Object.keys(parse(limited.attributes) as object);
    expect(storedSpanBytes(limited)).toBeLessThanOrEqual(limits.spanBytes);
    expect(limited.events).toBe('[]');
    expect(limited.links).toBe('[]');
    expect(keys.length).toBeGreaterThan(40);
    expect(keys).toEqual(Array.from({ length: keys.length }, (_, i) => `key.${i}`));
  });

  it('fits oversized input and output last, setting their truncated flags', () => {
    const input = JSON.stringify({ value: 'i'.repeat(400 * KiB) });
    const output = JSON.stringify({ value: 'o'.repeat(10 * KiB) });
    const limited = limitSpan(span({ input, output, attributes: attributesOf(10) }));
    expect(storedSpanBytes(limited)).toBeLessThanOrEqual(limits.spanBytes);
    expect(limited.attributes).toBe('{}');
    expect(limited.inputTruncated).toBe(true);
    expect(limited.output).toBe(output);
    expect(limited.outputTruncated).toBe(false);
  });
});
