// AI SDK (Vercel) telemetry. Input: `ai.prompt.messages` (the provider call's messages), else
// `ai.prompt` (`{ system?, prompt?, messages? }` of the outer call), else a tool span's
// `ai.toolCall.args`, else an embedding span's `ai.value` (`embed`) or `ai.values` (`embedMany`
// and every `doEmbed`: a list of JSON texts, stored as the list of values). Output:
// `ai.response.text` and `ai.response.toolCalls` as one assistant message, else
// `ai.toolCall.result` (the tool's return value as JSON, as every version sends it). Tool calls
// carry `args` (v4) or `input` (v5+), tool results `result` (v4) or `output` (v5+, wrapped by kind
// as `{ type: 'json', value }`: the value is stored, as the SDK's own GenAI mapping does); other
// part types (image, file, reasoning) are dropped.
//
// An embedding's vectors (`ai.embedding`, `ai.embeddings`) are not read as output: nobody reads
// a thousand numbers, the SDK's current OpenTelemetry integration leaves them out by default, and
// parsing and storing one 1536-number vector as JSON takes about 0.5 ms, thirty times an LLM
// span's whole budget on the ingest path. They stay attributes, stored as sent.

import { z } from 'zod';
import { findAttribute } from '../attributes.ts';
import type { KeyValue } from '../otlp.ts';
import {
  type Convention,
  consumesKeys,
  messagesParser,
  type Reading,
  readMessages,
  readValue,
} from './convention.ts';
import {
  attributeJson,
  json,
  knownParts,
  message,
  messagesShape,
  parsedValueShape,
  type ToolCallPart,
  textPart,
  toolCallPart,
  toolCallResponsePart,
} from './messages.ts';

const textKey = 'ai.response.text';
const toolCallsKey = 'ai.response.toolCalls';
const valuesKey = 'ai.values';

/** A tool call as the messages' `tool-call` parts and `ai.response.toolCalls` entries share it. */
const toolCall = z.object({
  toolCallId: z.string().optional(),
  toolName: z.string(),
  args: json.optional(),
  input: json.optional(),
});

function toToolCall(call: z.infer<typeof toolCall>): ToolCallPart {
  return toolCallPart(call.toolCallId, call.toolName, call.args ?? call.input);
}

/** v5+ wraps a tool's output by kind; the value inside is what the tool returned. */
const toolOutput = z.union([
  z
    .object({ type: z.enum(['text', 'json', 'error-text', 'error-json']), value: json })
    .transform((o) => o.value),
  json,
]);

const part = z.union([
  z.object({ type: z.literal('text'), text: z.string() }).transform((p) => textPart(p.text)),
  toolCall.extend({ type: z.literal('tool-call') }).transform(toToolCall),
  z
    .object({
      type: z.literal('tool-result'),
      toolCallId: z.string().optional(),
      result: json.optional(),
      output: toolOutput.optional(),
    })
    .transform((p) => toolCallResponsePart(p.toolCallId, p.result ?? p.output)),
  z.object({ type: z.string() }).transform(() => undefined),
]);

const content = z.union([
  z.string().transform((text) => [textPart(text)]),
  z.array(part).transform(knownParts),
]);

const messages = z.array(
  z.object({ role: z.string(), content }).transform((m) => message(m.role, m.content)),
);

/** The outer call's prompt: a system text, then a prompt (a text or messages), then messages. */
const prompt = z
  .strictObject({
    system: z.string().optional(),
    prompt: z
      .union([z.string().transform((text) => [message('user', [textPart(text)])]), messages])
      .optional(),
    messages: messages.optional(),
  })
  .transform((p) => [
    ...(p.system === undefined ? [] : [message('system', [textPart(p.system)])]),
    ...(p.prompt ?? []),
    ...(p.messages ?? []),
  ]);

const toolCalls = z.array(toolCall.transform(toToolCall));
const readPromptMessages = messagesParser(messages);
const readPrompt = messagesParser(prompt);

export const aiSdk: Convention = {
  name: 'AI SDK',
  keyPrefixes: ['ai.'],
  readInput: ({ attributes }) =>
    readMessages(attributes, 'ai.prompt.messages', readPromptMessages) ??
    readMessages(attributes, 'ai.prompt', readPrompt) ??
    readValue(attributes, 'ai.toolCall.args') ??
    readValue(attributes, 'ai.value') ??
    readEmbeddedValues(attributes),
  readOutput: ({ attributes }) => readResponse(attributes) ?? readValue(attributes, 'ai.toolCall.result'),
};

/** Text and tool calls together are the one assistant message the call answered with. */
function readResponse(attributes: readonly KeyValue[]): Reading | undefined {
  const text = findAttribute(attributes, textKey);
  const calls = findAttribute(attributes, toolCallsKey);
  if (text === undefined && calls === undefined) return undefined;
  const callsJson = calls === undefined ? [] : attributeJson(calls);
  const parsedCalls = toolCalls.safeParse(callsJson);
  // Calls in another shape are kept as sent, read once: `{ value }` of the JSON parsed above.
  if (!parsedCalls.success)
    return { value: parsedValueShape(callsJson), consumes: consumesKeys(toolCallsKey) };
  const textParts = text?.kind === 'string' && text.value !== '' ? [textPart(text.value)] : [];
  return {
    value: messagesShape([message('assistant', [...textParts, ...parsedCalls.data])]),
    consumes: (key) => key === textKey || key === toolCallsKey,
  };
}

/** `ai.values`: each value embedded, sent as its JSON text. */
function readEmbeddedValues(attributes: readonly KeyValue[]): Reading | undefined {
  const values = findAttribute(attributes, valuesKey);
  if (values === undefined) return undefined;
  return {
    value: { value: values.kind === 'array' ? values.values.map(attributeJson) : attributeJson(values) },
    consumes: (key) => key === valuesKey,
  };
}
