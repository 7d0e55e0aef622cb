// Input and output of a span, from the "Input and output" table of 001 (Attributes read): the
// conventions in the table's order; the first one that has an input provides the input and,
// separately, the first one that has an output provides the output. What they read is removed
// from the stored attributes (and from the GenAI details event it came from); what conventions
// that did not win have sent stays.

import type { KeyValue, OtlpEvent } from '../otlp.ts';
import type { JsonValue } from '../span.ts';
import { aiSdk } from './ai-sdk.ts';
import type { Convention, IoSource, Reading } from './convention.ts';
import { genAi } from './genai.ts';
import { genAiIndexed } from './genai-indexed.ts';
import { genAiTool } from './genai-tool.ts';
import { openInference, withoutBodyCopies } from './openinference.ts';
import { traceloop } from './traceloop.ts';

export type { IoSource, Reading } from './convention.ts';

export const conventions: readonly Convention[] = [
  genAi,
  genAiIndexed,
  genAiTool,
  aiSdk,
  openInference,
  traceloop,
];

export interface InputOutput {
  /** `{ messages }` or `{ value }`, or null when no convention has one. */
  input: JsonValue | null;
  output: JsonValue | null;
  /** The span's attributes and events without what became input or output. */
  attributes: readonly KeyValue[];
  events: readonly OtlpEvent[];
}

/**
 * The conventions' key prefixes together: a span with no events and no attribute under one of them
 * has neither input nor output, and is not read by each convention in turn (for a span of a
 * service's own, two attributes and no events, that was a sixth of its normalization).
 */
const conventionKeyPrefixes = [...new Set(conventions.flatMap((convention) => convention.keyPrefixes))];

function mayHoldInputOutput(source: IoSource): boolean {
  if (source.events.length > 0) return true;
  for (const { key } of source.attributes)
    for (const prefix of conventionKeyPrefixes) if (key.startsWith(prefix)) return true;
  return false;
}

// Most spans carry neither (a service's own spans around its model calls): their attributes and
// events are kept as they came rather than copied.
const neither = (source: IoSource): InputOutput => ({
  input: null,
  output: null,
  attributes: source.attributes,
  events: source.events,
});

export function readInputOutput(source: IoSource): InputOutput {
  if (!mayHoldInputOutput(source)) return neither(source);
  const input = readInput(source);
  const output = readOutput(source);
  if (input === undefined && output === undefined) return neither(source);
  const readings = [input, output].filter((reading) => reading !== undefined);
  return {
    input: input?.value ?? null,
    output: output?.value ?? null,
    attributes: withoutConsumed(source.attributes, readings, undefined),
    events: source.events.map((event, index) => ({
      ...event,
      attributes: withoutConsumed(event.attributes, readings, index),
    })),
  };
}

/**
 * The span without the attributes that only copy what its input or output is read from (OpenInference's
 * request and response bodies beside its messages). Normalization applies it before redaction,
 * so a credential in a message is removed and counted once.
 */
export function withoutCopies<S extends IoSource>(source: S): S {
  const attributes = withoutBodyCopies(source.attributes);
  return attributes === undefined ? source : { ...source, attributes };
}

export function readInput(source: IoSource): Reading | undefined {
  return firstFound(conventions, (convention) => convention.readInput(source));
}

export function readOutput(source: IoSource): Reading | undefined {
  return firstFound(conventions, (convention) => convention.readOutput(source));
}

function firstFound(all: readonly Convention[], read: (convention: Convention) => Reading | undefined) {
  for (const convention of all) {
    const reading = read(convention);
    if (reading !== undefined) return reading;
  }
  return undefined;
}

/** `eventIndex` undefined means the span's own attributes. */
function withoutConsumed(
  attributes: readonly KeyValue[],
  readings: readonly Reading[],
  eventIndex: number | undefined,
): KeyValue[] {
  const here = readings.filter((reading) => reading.eventIndex === eventIndex);
  return attributes.filter(({ key }) => !here.some((reading) => reading.consumes(key)));
}
