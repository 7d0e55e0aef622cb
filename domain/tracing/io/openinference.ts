// OpenInference (Arize): `llm.input_messages.<n>.message.*` and `llm.output_messages.<n>.message.*`
// (role, content, contents.<m>.message_content.text, tool_calls.<m>.tool_call.id/function.name/
// function.arguments, tool_call_id), else `input.value` and `output.value` as `{ value }`.
// A message family is consumed whole; content items other than text (images) are dropped.
//
// An LLM span sends the request and response bodies as `input.value` and `output.value` beside
// the message families read from them. Once the messages are read the body is only a copy (up
// to 8 KiB, and every credential in a message would be counted twice), so it is consumed too,
// and normalization drops it before redaction (`withoutBodyCopies`).

import { findAttribute, indexedGroups, isIndexedKey, readString } from '../attributes.ts';
import type { KeyValue } from '../otlp.ts';
import { type Convention, type Reading, readMessageFamily, readValue } from './convention.ts';
import {
  attributeJson,
  type Message,
  message,
  type Part,
  textPart,
  toolCallPart,
  toolCallResponsePart,
} from './messages.ts';

const input = { family: 'llm.input_messages', body: 'input.value', role: 'user' } as const;
const output = { family: 'llm.output_messages', body: 'output.value', role: 'assistant' } as const;
type Side = typeof input | typeof output;

export const openInference: Convention = {
  name: 'OpenInference',
  keyPrefixes: ['llm.', 'input.', 'output.'],
  readInput: ({ attributes }) => readSide(attributes, input),
  readOutput: ({ attributes }) => readSide(attributes, output),
};

/** The side's messages, which consume its body as well; without them, the body as `{ value }`. */
function readSide(attributes: readonly KeyValue[], side: Side): Reading | undefined {
  const messages = readMessageFamily(attributes, side.family, (fields) => toMessage(fields, side.role));
  if (messages === undefined) return readValue(attributes, side.body);
  return { ...messages, consumes: (key) => key === side.body || messages.consumes(key) };
}

/**
 * The attributes without each body whose message family is there (see the top of this file), or
 * undefined when there is none to drop: most spans have no body and cost one pass of comparisons.
 */
export function withoutBodyCopies(attributes: readonly KeyValue[]): KeyValue[] | undefined {
  if (!attributes.some(({ key }) => key === input.body || key === output.body)) return undefined;
  const copies = [input, output].filter((side) =>
    attributes.some(({ key }) => isIndexedKey(side.family, key)),
  );
  if (copies.length === 0) return undefined;
  return attributes.filter(({ key }) => !copies.some((side) => side.body === key));
}

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
