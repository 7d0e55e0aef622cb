// OpenInference (Arize): `llm.input_messages.<n>.message.*` and `llm.output_messages.<n>.message.*`
// (role, content, contents.<m>.message_content.text, tool_calls.<m>.tool_call.id/function.name/
// function.arguments, tool_call_id), else `input.value` and `output.value` as `{ value }`.
// A message family is consumed whole; content items other than text (images) are dropped.

import { findAttribute, indexedGroups, readString } from '../attributes.ts';
import type { KeyValue } from '../otlp.ts';
import { type Convention, readMessageFamily, readValue } from './convention.ts';
import {
  attributeJson,
  type Message,
  message,
  type Part,
  textPart,
  toolCallPart,
  toolCallResponsePart,
} from './messages.ts';

export const openInference: Convention = {
  name: 'OpenInference',
  readInput: ({ attributes }) =>
    readMessageFamily(attributes, 'llm.input_messages', (fields) => toMessage(fields, 'user')) ??
    readValue(attributes, 'input.value'),
  readOutput: ({ attributes }) =>
    readMessageFamily(attributes, 'llm.output_messages', (fields) => toMessage(fields, 'assistant')) ??
    readValue(attributes, 'output.value'),
};

function toMessage(fields: readonly KeyValue[], defaultRole: string): Message {
  const parts = [
    ...contentParts(fields),
    ...indexedGroups(fields, 'message.contents').flatMap(contentItemParts),
    ...indexedGroups(fields, 'message.tool_calls').map(toToolCall),
  ];
  return message(readString(fields, 'message.role') ?? defaultRole, parts);
}

/** `message.content` is a text, or a tool's answer when `message.tool_call_id` names the call. */
function contentParts(fields: readonly KeyValue[]): Part[] {
  const content = readString(fields, 'message.content');
  if (content === undefined) return [];
  const toolCallId = readString(fields, 'message.tool_call_id');
  return [toolCallId === undefined ? textPart(content) : toolCallResponsePart(toolCallId, content)];
}

function contentItemParts(item: readonly KeyValue[]): Part[] {
  const text = readString(item, 'message_content.text');
  return text === undefined ? [] : [textPart(text)];
}

function toToolCall(call: readonly KeyValue[]): Part {
  const args = findAttribute(call, 'tool_call.function.arguments');
  return toolCallPart(
    readString(call, 'tool_call.id'),
    readString(call, 'tool_call.function.name') ?? '',
    args && attributeJson(args),
  );
}
