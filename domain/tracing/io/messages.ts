// The stored shapes of input and output, from "Input and output storage shape" (001): message-style
// content as `{ messages: [{ role, parts }] }` where a part is `text`, `tool_call` or
// `tool_call_response`; anything else as `{ value }`, parsed as JSON when it is JSON.

import { z } from 'zod';
import { toJson } from '../attributes.ts';
import type { AnyValue } from '../otlp.ts';
import type { JsonValue } from '../span.ts';

export type TextPart = { type: 'text'; content: string };
export type ToolCallPart = { type: 'tool_call'; id: string | null; name: string; arguments: JsonValue };
export type ToolCallResponsePart = { type: 'tool_call_response'; id: string | null; response: JsonValue };
export type Part = TextPart | ToolCallPart | ToolCallResponsePart;

/** `finish_reason` is kept where the convention sends one (GenAI output messages have it). */
export type Message =
  | { role: string; parts: Part[] }
  | { role: string; parts: Part[]; finish_reason: string };

export function textPart(content: string): TextPart {
  return { type: 'text', content };
}

export function toolCallPart(
  id: string | null | undefined,
  name: string,
  args: JsonValue | undefined,
): ToolCallPart {
  return { type: 'tool_call', id: id ?? null, name, arguments: jsonArgument(args) };
}

export function toolCallResponsePart(
  id: string | null | undefined,
  response: JsonValue | undefined,
): ToolCallResponsePart {
  return { type: 'tool_call_response', id: id ?? null, response: jsonArgument(response) };
}

export function message(role: string, parts: Part[], finishReason?: string): Message {
  return finishReason === undefined ? { role, parts } : { role, parts, finish_reason: finishReason };
}

export function messagesShape(messages: Message[]): JsonValue {
  return { messages };
}

/** `{ value }` for an attribute that is not message-style (or whose messages did not parse). */
export function valueShape(value: AnyValue): JsonValue {
  return parsedValueShape(attributeJson(value));
}

/** `{ value }` for an attribute already read with attributeJson (a convention that tried its messages). */
export function parsedValueShape(json: JsonValue): JsonValue {
  return { value: json };
}

/** An attribute as JSON: a string is parsed when it is JSON text; a structured value is converted. */
export function attributeJson(value: AnyValue): JsonValue {
  return value.kind === 'string' ? parseJsonText(value.value) : toJson(value);
}

/** The JSON a text holds, or the text itself when it is not JSON. */
export function parseJsonText(text: string): JsonValue {
  if (!mayOpenJson(text)) return text;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/**
 * False only for a text JSON.parse certainly refuses: its first character after JSON's whitespace
 * opens no value, or it opens `true`, `false` or `null` and is not that literal. Prose inputs and
 * outputs are common (OpenInference's text/plain `input.value`), and a refused JSON.parse costs
 * its thrown SyntaxError: two made a chain span's normalization 28-38 µs instead of 9.
 */
function mayOpenJson(text: string): boolean {
  for (let at = 0; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d) continue;
    // { [ " - and the digits open an object, an array, a string and a number.
    if (code === 0x7b || code === 0x5b || code === 0x22 || code === 0x2d || (code >= 0x30 && code <= 0x39))
      return true;
    // t f n: the literals; JSON.parse still judges the text (trim knows more whitespace than JSON).
    if (code === 0x74 || code === 0x66 || code === 0x6e) {
      const literal = text.trim();
      return literal === 'true' || literal === 'false' || literal === 'null';
    }
    return false;
  }
  return false;
}

/** Tool arguments and results arrive as objects or as JSON text; both are stored as JSON. */
function jsonArgument(value: JsonValue | undefined): JsonValue {
  if (value === undefined) return null;
  return typeof value === 'string' ? parseJsonText(value) : value;
}

/** Any JSON value inside an already parsed JSON document (the schemas below only pick fields). */
export const json = z.custom<JsonValue>(() => true);

/** Drops the parts a schema mapped to `undefined`: part types the stored shape has no place for. */
export function knownParts(parts: ReadonlyArray<Part | undefined>): Part[] {
  return parts.filter((part): part is Part => part !== undefined);
}
