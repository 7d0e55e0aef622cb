// What every input/output convention provides (see index.ts for their order), and the two ways a
// convention reads an attribute: as messages when they fit its schema, else as a `{ value }`.

import type { z } from 'zod';
import { findAttribute, indexedGroups, isIndexedKey } from '../attributes.ts';
import type { KeyValue, OtlpEvent } from '../otlp.ts';
import type { JsonValue } from '../span.ts';
import { attributeJson, type Message, messagesShape, valueShape } from './messages.ts';

/** What a convention reads from: the span's attributes and its events. */
export interface IoSource {
  attributes: readonly KeyValue[];
  events: readonly OtlpEvent[];
}

/** One input or output found by a convention. */
export interface Reading {
  /** The stored shape: `{ messages }` or `{ value }`. */
  value: JsonValue;
  /** The attributes that became this input or output, removed from the stored attributes. */
  consumes: (key: string) => boolean;
  /** Set when the attributes were on this span event rather than on the span itself. */
  eventIndex?: number;
}

export interface Convention {
  name: string;
  readInput(source: IoSource): Reading | undefined;
  readOutput(source: IoSource): Reading | undefined;
}

/** The attribute `key` as `{ value }`. */
export function readValue(attributes: readonly KeyValue[], key: string): Reading | undefined {
  const value = findAttribute(attributes, key);
  return value === undefined ? undefined : { value: valueShape(value), consumes: (k) => k === key };
}

/**
 * The attribute `key` as `{ messages }` when it fits `schema`; malformed JSON or another shape
 * falls back to `{ value }`, so a bad attribute is still stored and never throws.
 */
export function readMessages(
  attributes: readonly KeyValue[],
  key: string,
  schema: z.ZodType<Message[]>,
): Reading | undefined {
  const value = findAttribute(attributes, key);
  if (value === undefined) return undefined;
  const parsed = schema.safeParse(attributeJson(value));
  return {
    value: parsed.success ? messagesShape(parsed.data) : valueShape(value),
    consumes: (k) => k === key,
  };
}

/** The family `<prefix>.<n>.…` as `{ messages }`, one message per index; the whole family is consumed. */
export function readMessageFamily(
  attributes: readonly KeyValue[],
  prefix: string,
  toMessage: (fields: readonly KeyValue[]) => Message,
): Reading | undefined {
  const groups = indexedGroups(attributes, prefix);
  if (groups.length === 0) return undefined;
  return { value: messagesShape(groups.map(toMessage)), consumes: (key) => isIndexedKey(prefix, key) };
}
