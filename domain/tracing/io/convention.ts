// What every input/output convention provides (see index.ts for their order), and the two ways a
// convention reads an attribute: as messages when they fit its schema, else as a `{ value }`.

import type { z } from 'zod';
import { findAttribute, indexedGroups, isIndexedKey } from '../attributes.ts';
import type { AnyValue, KeyValue, OtlpEvent } from '../otlp.ts';
import type { JsonValue } from '../span.ts';
import { attributeJson, type Message, messagesShape, parsedValueShape, valueShape } from './messages.ts';

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
  /**
   * What every attribute key it reads on the span itself starts with: a span with no events and
   * no such attribute is not read by it (index.ts). Its tests fail if it reads a key outside them.
   */
  keyPrefixes: readonly string[];
  readInput(source: IoSource): Reading | undefined;
  readOutput(source: IoSource): Reading | undefined;
}

/**
 * `consumes` for a reading of the attributes `keys`. Readings are made for every span received;
 * a closure built here is not a named function, which tsx (esbuild's keepNames) would otherwise
 * name with a property definition each time, a cost the hot path measured.
 */
export const consumesKeys =
  (...keys: string[]) =>
  (key: string): boolean =>
    keys.includes(key);

/** The attribute `key` as `{ value }`. */
export function readValue(attributes: readonly KeyValue[], key: string): Reading | undefined {
  const value = findAttribute(attributes, key);
  return value === undefined ? undefined : { value: valueShape(value), consumes: consumesKeys(key) };
}

/** A convention's messages read from a JSON value; undefined when the value is not in its shape. */
export type MessagesParser = (value: JsonValue) => Message[] | undefined;

/** A parser from a zod schema of the convention's messages. */
export const messagesParser =
  (schema: z.ZodType<Message[]>): MessagesParser =>
  (value) => {
    const parsed = schema.safeParse(value);
    return parsed.success ? parsed.data : undefined;
  };

/**
 * The attribute `key` as `{ messages }` when `parse` reads it; malformed JSON or another shape
 * falls back to `{ value }`, so a bad attribute is still stored and never throws.
 */
export function readMessages(
  attributes: readonly KeyValue[],
  key: string,
  parse: MessagesParser,
): Reading | undefined {
  const value = findAttribute(attributes, key);
  if (value === undefined) return undefined;
  const read = messagesOrValue(value, parse);
  return {
    value: 'messages' in read ? messagesShape(read.messages) : read.asValue,
    consumes: consumesKeys(key),
  };
}

/**
 * An attribute's messages when `parse` reads them, else its stored `{ value }` (`asValue`). Its
 * JSON is read once: the parsers only read it, so what is not messages is stored as parsed.
 */
export function messagesOrValue(
  value: AnyValue,
  parse: MessagesParser,
): { messages: Message[] } | { asValue: JsonValue } {
  const json = attributeJson(value);
  const messages = parse(json);
  return messages === undefined ? { asValue: parsedValueShape(json) } : { messages };
}

/** `consumes` for a reading of the whole family `<prefix>.<n>.…` (unnamed, as `consumesKeys`). */
export const consumesFamily =
  (prefix: string) =>
  (key: string): boolean =>
    isIndexedKey(prefix, key);

/** The family `<prefix>.<n>.…` as `{ messages }`, one message per index; the whole family is consumed. */
export function readMessageFamily(
  attributes: readonly KeyValue[],
  prefix: string,
  toMessage: (fields: readonly KeyValue[]) => Message,
): Reading | undefined {
  const groups = indexedGroups(attributes, prefix);
  if (groups.length === 0) return undefined;
  return { value: messagesShape(groups.map(toMessage)), consumes: consumesFamily(prefix) };
}
