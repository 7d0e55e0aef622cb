// One OTLP span → the span we store (001: Stored span, Attributes read, Limits). Credentials are
// removed first, so a later cut never leaves half a credential behind; then the attributes are
// read; then input and output are cut to their own limit, and the other limits are applied.

import { attributesToJson } from './attributes.ts';
import { readEnvironment, readService, readSession, readUser } from './context.ts';
import type { PublishedSpan } from './events.ts';
import { readInputOutput, withoutCopies } from './io/index.ts';
import { readKind } from './kind.ts';
import { limits } from './limits.ts';
import {
  readCachedInputTokens,
  readInputTokens,
  readModel,
  readOutputTokens,
  readReasoningTokens,
} from './model.ts';
import type { KeyValue, OtlpEvent, OtlpLink, OtlpScope, OtlpSpan } from './otlp.ts';
import { costNanoUsd, type PriceOf, type TokenUsage } from './prices.ts';
import { redactKeyValues, redactText } from './redaction.ts';
import type { JsonValue, SpanKind } from './span.ts';
import { fitJson, limitSpan, storedSpanBytes } from './truncation.ts';
import { fitsBytes, withinPerSpanLimits } from './within-limits.ts';

/**
 * What every span of one resource shares, redacted and serialized once per ResourceSpans rather
 * than once per span (the hot path normalizes hundreds of spans per resource).
 */
export interface PreparedResource {
  attributes: KeyValue[];
  /** The stored `resourceAttributes` JSON text. */
  json: string;
  /** Credential values removed from the resource, counted on each of its spans. */
  redactedCount: number;
  serviceName: string | null;
  environment: string | null;
}

export function prepareResource(resource: readonly KeyValue[]): PreparedResource {
  const { value, count } = redactKeyValues(resource);
  return {
    attributes: value,
    json: JSON.stringify(attributesToJson(value)),
    redactedCount: count,
    serviceName: readService(value),
    environment: readEnvironment(value),
  };
}

/**
 * The span as stored and published, with its size as counted against the limits; a generation
 * priced at `priceOf` (its org's prices now), none when absent.
 */
export function normalizeSpan(
  span: OtlpSpan,
  resource: readonly KeyValue[] | PreparedResource,
  scope: OtlpScope,
  priceOf?: PriceOf,
): PublishedSpan {
  const prepared = 'json' in resource ? resource : prepareResource(resource);
  const redacted = redactSpan(withoutCopies(span));
  const clean = redacted.span;
  const io = readInputOutput(clean);
  const input = jsonWithinInputOutputLimit(io.input);
  const output = jsonWithinInputOutputLimit(io.output);
  const kind = readKind(clean.attributes);
  const model = readModel(clean.attributes);
  const usage: TokenUsage = {
    inputTokens: readInputTokens(clean.attributes),
    outputTokens: readOutputTokens(clean.attributes),
    cachedInputTokens: readCachedInputTokens(clean.attributes),
    reasoningTokens: readReasoningTokens(clean.attributes),
  };
  // Built whole, size included, so no copy of the span is made to add it (the hot path's habit).
  const stored: PublishedSpan = {
    traceId: clean.traceId,
    spanId: clean.spanId,
    parentSpanId: clean.parentSpanId,
    name: clean.name,
    kind,
    otelKind: clean.kind,
    startTimeUnixNano: clean.startTimeUnixNano,
    endTimeUnixNano: clean.endTimeUnixNano,
    statusCode: clean.status.code,
    statusMessage: clean.status.message,
    model,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedInputTokens: usage.cachedInputTokens,
    reasoningTokens: usage.reasoningTokens,
    costNanoUsd: generationCost(kind, model, usage, priceOf),
    input: input.text,
    output: output.text,
    inputTruncated: input.truncated,
    outputTruncated: output.truncated,
    sessionId: readSession(clean.attributes),
    userId: readUser(clean.attributes),
    serviceName: prepared.serviceName,
    environment: prepared.environment,
    attributes: JSON.stringify(attributesToJson(io.attributes)),
    events: io.events.length === 0 ? '[]' : JSON.stringify(io.events.map(toStoredEvent)),
    links: clean.links.length === 0 ? '[]' : JSON.stringify(clean.links.map(toStoredLink)),
    resourceAttributes: prepared.json,
    scopeName: scope.name,
    scopeVersion: scope.version,
    redactedCount: redacted.count + prepared.redactedCount,
    sizeBytes: 0,
  };
  const parts = {
    name: stored.name,
    strings: [
      stored.statusMessage,
      stored.model,
      stored.sessionId,
      stored.userId,
      stored.serviceName,
      stored.environment,
      stored.scopeName,
      stored.scopeVersion,
    ],
    attributes: io.attributes,
    events: io.events,
    links: clean.links,
    resourceAttributes: stored.resourceAttributes,
  };
  if (withinPerSpanLimits(parts)) {
    stored.sizeBytes = storedSpanBytes(stored);
    if (stored.sizeBytes <= limits.spanBytes) return stored;
  }
  const limited = limitSpan(stored);
  return { ...limited, sizeBytes: storedSpanBytes(limited) };
}

/** A generation's cost at its model's price; none for other kinds, as tokens are counted. */
function generationCost(
  kind: SpanKind,
  model: string | null,
  usage: TokenUsage,
  priceOf: PriceOf | undefined,
): number | null {
  if (kind !== 'generation' || model === null || priceOf === undefined) return null;
  const price = priceOf(model);
  return price === undefined ? null : costNanoUsd(usage, price);
}

interface RedactedSpan {
  span: OtlpSpan;
  /** Credential values removed from the span itself (its resource's are counted apart). */
  count: number;
}

/** Every text a span carries: its name, status message, and the attributes of span, events and links. */
export function redactSpan(span: OtlpSpan): RedactedSpan {
  // No closures and no copies: this runs for every span received, and most hold nothing to remove.
  const name = redactText(span.name);
  const statusMessage = redactText(span.status.message);
  const attributes = redactKeyValues(span.attributes);
  const events = redactEach(span.events);
  const links = redactEach(span.links);
  const count = name.count + statusMessage.count + attributes.count + events.count + links.count;
  if (count === 0) return { span, count };
  const clean: OtlpSpan = {
    ...span,
    name: name.text,
    status: { ...span.status, message: statusMessage.text },
    attributes: attributes.value,
    events: events.items,
    links: links.items,
  };
  return { span: clean, count };
}

/** Events or links with their attributes redacted; each unchanged one is kept as it came. */
function redactEach<T extends { attributes: KeyValue[] }>(
  items: readonly T[],
): { items: T[]; count: number } {
  if (items.length === 0) return { items: items as T[], count: 0 };
  let count = 0;
  const redactedItems: T[] = [];
  for (const item of items) {
    const redacted = redactKeyValues(item.attributes);
    count += redacted.count;
    redactedItems.push(redacted.count === 0 ? item : { ...item, attributes: redacted.value });
  }
  return { items: redactedItems, count };
}

/** Input or output as its stored JSON text, its longest strings cut to fit inputOutputBytes. */
function jsonWithinInputOutputLimit(value: JsonValue | null): { text: string | null; truncated: boolean } {
  if (value === null) return { text: null, truncated: false };
  const text = JSON.stringify(value);
  if (fitsBytes(text, limits.inputOutputBytes)) return { text, truncated: false };
  const fitted = fitJson(value, limits.inputOutputBytes);
  return { text: JSON.stringify(fitted.value), truncated: fitted.truncated };
}

/** The shape span.ts documents; nanoseconds as decimal text, as OTLP/JSON writes 64-bit integers. */
function toStoredEvent(event: OtlpEvent): JsonValue {
  return {
    name: event.name,
    time_unix_nano: event.timeUnixNano.toString(),
    attributes: attributesToJson(event.attributes),
  };
}

function toStoredLink(link: OtlpLink): JsonValue {
  return {
    trace_id: link.traceId,
    span_id: link.spanId,
    trace_state: link.traceState,
    attributes: attributesToJson(link.attributes),
  };
}
