// GenAI indexed (the older flattened form, sent by OpenLLMetry and others): `gen_ai.prompt.<n>.*`
// for input and `gen_ai.completion.<n>.*` for output, with `role`, `content`, `finish_reason`,
// `tool_call_id` (a tool's answer) and `tool_calls.<m>.id/name/arguments`. The whole family is
// consumed, so none of its attributes stays in the stored attributes.
//
// A multi-part content (OpenAI's content parts, Anthropic's content blocks) arrives as the JSON
// text of its parts array; it becomes its parts: `text`, and Anthropic's `tool_result` as a tool's
// answer. Other parts are dropped: images and files have no stored part, and Anthropic's
// `tool_use` blocks are sent again as the member's `tool_calls`.

import { z } from 'zod';
import { findAttribute, indexedGroups, readString, toJson } from '../attributes.ts';
import type { KeyValue } from '../otlp.ts';
import { type Convention, readMessageFamily } from './convention.ts';
import {
  attributeJson,
  json,
  knownParts,
  type Message,
  message,
  type Part,
  textPart,
  toolCallPart,
  toolCallResponsePart,
} from './messages.ts';

export const genAiIndexed: Convention = {
  name: 'GenAI indexed',
  keyPrefixes: ['gen_ai.'],
  readInput: (source) =>
    readMessageFamily(source.attributes, 'gen_ai.prompt', (fields) => toMessage(fields, 'user')),
  readOutput: (source) =>
    readMessageFamily(source.attributes, 'gen_ai.completion', (fields) => toMessage(fields, 'assistant')),
};

/** A member without a role (some instrumentations omit it) gets the side's usual role. */
function toMessage(fields: readonly KeyValue[], defaultRole: string): Message {
  const parts = [...contentParts(fields), ...indexedGroups(fields, 'tool_calls').map(toToolCall)];
  return message(readString(fields, 'role') ?? defaultRole, parts, readString(fields, 'finish_reason'));
}

/** The content is a text or a parts array, or a tool's answer when the member names the call it answers. */
function contentParts(fields: readonly KeyValue[]): Part[] {
  const content = findAttribute(fields, 'content');
  if (content === undefined || (content.kind === 'string' && content.value === '')) return [];
  const toolCallId = readString(fields, 'tool_call_id');
  if (toolCallId !== undefined) return [toolCallResponsePart(toolCallId, attributeJson(content))];
  if (content.kind !== 'string') return [textPart(JSON.stringify(toJson(content)))];
  return multiPartContent(content.value) ?? [textPart(content.value)];
}

const contentPart = z.union([
  z.object({ type: z.literal('text'), text: z.string() }).transform((p) => textPart(p.text)),
  z
    .object({ type: z.literal('tool_result'), tool_use_id: z.string().optional(), content: json.optional() })
    .transform((p) => toolCallResponsePart(p.tool_use_id, p.content)),
  z.object({ type: z.string() }).transform(() => undefined),
]);

const contentPartsArray = z.array(contentPart).min(1).transform(knownParts);

/**
 * The parts of a content that is the JSON text of a non-empty array of typed part objects; any
 * other text (prose, or JSON of another shape) is not. Only a text opening with `[` is parsed,
 * so plain contents cost one character check on the ingest path.
 */
function multiPartContent(text: string): Part[] | undefined {
  if (text.charCodeAt(0) !== 0x5b) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = contentPartsArray.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

function toToolCall(call: readonly KeyValue[]): Part {
  const args = findAttribute(call, 'arguments');
  return toolCallPart(readString(call, 'id'), readString(call, 'name') ?? '', args && attributeJson(args));
}
