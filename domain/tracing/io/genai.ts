// GenAI (OpenTelemetry semantic conventions for generative AI): `gen_ai.input.messages`,
// `gen_ai.output.messages` and `gen_ai.system_instructions`, on the span or, when the span has
// none of them, on its `gen_ai.client.inference.operation.details` event. The messages already
// have the stored shape (role, parts); parts of other types (blob, uri, reasoning…) are dropped.
//
// Read by hand rather than with a schema library: most LLM spans carry these attributes, and on
// the ingest hot path a zod parse of them cost more than the JSON.parse before it (bench/normalize).

import { findAttribute, type JsonObject } from '../attributes.ts';
import type { KeyValue } from '../otlp.ts';
import type { JsonValue } from '../span.ts';
import {
  type Convention,
  consumesKeys,
  type IoSource,
  messagesOrValue,
  type Reading,
  readMessages,
} from './convention.ts';
import {
  attributeJson,
  type Message,
  message,
  messagesShape,
  type Part,
  textPart,
  toolCallPart,
  toolCallResponsePart,
} from './messages.ts';

const inputKey = 'gen_ai.input.messages';
const outputKey = 'gen_ai.output.messages';
const systemKey = 'gen_ai.system_instructions';
const detailsEvent = 'gen_ai.client.inference.operation.details';

const isObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isIdentifier = (value: JsonValue | undefined): value is string | null | undefined =>
  value === undefined || value === null || typeof value === 'string';

/** A part of another type than the stored shape knows: left out, while the message still reads. */
const otherPart = Symbol('other part');

/** One part; undefined when the value is not a part at all (no string `type`). */
function readPart(value: JsonValue): Part | typeof otherPart | undefined {
  if (!isObject(value) || typeof value.type !== 'string') return undefined;
  const { type, content, id, name, response } = value;
  if (type === 'text' && typeof content === 'string') return textPart(content);
  if (type === 'tool_call' && isIdentifier(id) && typeof name === 'string')
    return toolCallPart(id, name, value.arguments);
  if (type === 'tool_call_response' && isIdentifier(id)) return toolCallResponsePart(id, response);
  return otherPart;
}

function readParts(value: JsonValue | undefined): Part[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const parts: Part[] = [];
  for (const item of value) {
    const part = readPart(item);
    if (part === undefined) return undefined;
    if (part !== otherPart) parts.push(part);
  }
  return parts;
}

/** `[{ role, parts, finish_reason? }]`; undefined when any message is not of that shape. */
function readGenAiMessages(value: JsonValue): Message[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const messages: Message[] = [];
  for (const item of value) {
    if (!isObject(item) || typeof item.role !== 'string') return undefined;
    const parts = readParts(item.parts);
    const finishReason = item.finish_reason;
    if (parts === undefined || (finishReason !== undefined && typeof finishReason !== 'string'))
      return undefined;
    messages.push(message(item.role, parts, finishReason));
  }
  return messages;
}

/** Instructions are a list of parts; a plain text (or anything else) is kept as one text part. */
function readSystemInstructions(value: JsonValue): Part[] {
  const parts = readParts(value);
  if (parts !== undefined) return parts;
  return [textPart(typeof value === 'string' ? value : JSON.stringify(value))];
}

export const genAi: Convention = {
  name: 'GenAI',
  keyPrefixes: ['gen_ai.'],
  readInput: (source) => onSpanOrDetailsEvent(source, readInputFrom),
  readOutput: (source) =>
    onSpanOrDetailsEvent(source, (attributes) => readMessages(attributes, outputKey, readGenAiMessages)),
};

function onSpanOrDetailsEvent(
  source: IoSource,
  read: (attributes: readonly KeyValue[]) => Reading | undefined,
): Reading | undefined {
  const fromSpan = read(source.attributes);
  if (fromSpan !== undefined) return fromSpan;
  const eventIndex = source.events.findIndex((event) => event.name === detailsEvent);
  const event = source.events[eventIndex];
  const fromEvent = event === undefined ? undefined : read(event.attributes);
  return fromEvent === undefined ? undefined : { ...fromEvent, eventIndex };
}

/** Instructions become a leading `system` message; messages that do not parse are kept as a value. */
function readInputFrom(attributes: readonly KeyValue[]): Reading | undefined {
  const messagesValue = findAttribute(attributes, inputKey);
  const systemValue = findAttribute(attributes, systemKey);
  if (messagesValue === undefined && systemValue === undefined) return undefined;
  let messages: Message[] = [];
  if (messagesValue !== undefined) {
    const read = messagesOrValue(messagesValue, readGenAiMessages);
    if (!('messages' in read)) return { value: read.asValue, consumes: consumesKeys(inputKey) };
    messages = read.messages;
  }
  const system =
    systemValue === undefined ? [] : [message('system', readSystemInstructions(attributeJson(systemValue)))];
  return {
    value: messagesShape([...system, ...messages]),
    consumes: consumesKeys(inputKey, systemKey),
  };
}
