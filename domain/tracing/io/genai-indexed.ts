// GenAI indexed (the older flattened form, sent by OpenLLMetry and others): `gen_ai.prompt.<n>.*`
// for input and `gen_ai.completion.<n>.*` for output, with `role`, `content`, `finish_reason`,
// `tool_call_id` (a tool's answer) and `tool_calls.<m>.id/name/arguments`. The whole family is
// consumed, so none of its attributes stays in the stored attributes.

import { findAttribute, indexedGroups, readString, toJson } from '../attributes.ts';
import type { KeyValue } from '../otlp.ts';
import { type Convention, readMessageFamily } from './convention.ts';
import {
  attributeJson,
  type Message,
  message,
  type Part,
  textPart,
  toolCallPart,
  toolCallResponsePart,
} from './messages.ts';

export const genAiIndexed: Convention = {
  name: 'GenAI indexed',
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

/** The content is a text, or a tool's answer when the member names the call it answers. */
function contentParts(fields: readonly KeyValue[]): Part[] {
  const content = findAttribute(fields, 'content');
  if (content === undefined || (content.kind === 'string' && content.value === '')) return [];
  const toolCallId = readString(fields, 'tool_call_id');
  if (toolCallId !== undefined) return [toolCallResponsePart(toolCallId, attributeJson(content))];
  return [textPart(content.kind === 'string' ? content.value : JSON.stringify(toJson(content)))];
}

function toToolCall(call: readonly KeyValue[]): Part {
  const args = findAttribute(call, 'arguments');
  return toolCallPart(readString(call, 'id'), readString(call, 'name') ?? '', args && attributeJson(args));
}
