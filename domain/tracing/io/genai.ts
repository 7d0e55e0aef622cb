// GenAI (OpenTelemetry semantic conventions for generative AI): `gen_ai.input.messages`,
// `gen_ai.output.messages` and `gen_ai.system_instructions`, on the span or, when the span has
// none of them, on its `gen_ai.client.inference.operation.details` event. The messages already
// have the stored shape (role, parts); parts of other types (blob, uri, reasoning…) are dropped.

import { z } from 'zod';
import { findAttribute } from '../attributes.ts';
import type { KeyValue } from '../otlp.ts';
import { type Convention, type IoSource, type Reading, readMessages, readValue } from './convention.ts';
import {
  attributeJson,
  json,
  knownParts,
  message,
  messagesShape,
  textPart,
  toolCallPart,
  toolCallResponsePart,
} from './messages.ts';

const inputKey = 'gen_ai.input.messages';
const outputKey = 'gen_ai.output.messages';
const systemKey = 'gen_ai.system_instructions';
const detailsEvent = 'gen_ai.client.inference.operation.details';

const part = z.union([
  z.object({ type: z.literal('text'), content: z.string() }).transform((p) => textPart(p.content)),
  z
    .object({
      type: z.literal('tool_call'),
      id: z.string().nullish(),
      name: z.string(),
      arguments: json.optional(),
    })
    .transform((p) => toolCallPart(p.id, p.name, p.arguments)),
  z
    .object({ type: z.literal('tool_call_response'), id: z.string().nullish(), response: json.optional() })
    .transform((p) => toolCallResponsePart(p.id, p.response)),
  z.object({ type: z.string() }).transform(() => undefined),
]);

const parts = z.array(part).transform(knownParts);

const messages = z.array(
  z
    .object({ role: z.string(), parts, finish_reason: z.string().optional() })
    .transform((m) => message(m.role, m.parts, m.finish_reason)),
);

/** Instructions are a list of parts; a plain text (or anything else) is kept as one text part. */
const systemInstructions = z.union([
  parts,
  z.string().transform((text) => [textPart(text)]),
  json.transform((value) => [textPart(JSON.stringify(value))]),
]);

const input = z
  .object({ system: systemInstructions.optional(), messages: messages.optional() })
  .transform((i) => [...(i.system ? [message('system', i.system)] : []), ...(i.messages ?? [])]);

export const genAi: Convention = {
  name: 'GenAI',
  readInput: (source) => onSpanOrDetailsEvent(source, readInputFrom),
  readOutput: (source) =>
    onSpanOrDetailsEvent(source, (attributes) => readMessages(attributes, outputKey, messages)),
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
  const parsed = input.safeParse({
    system: systemValue === undefined ? undefined : attributeJson(systemValue),
    messages: messagesValue === undefined ? undefined : attributeJson(messagesValue),
  });
  if (!parsed.success) return readValue(attributes, inputKey);
  return { value: messagesShape(parsed.data), consumes: (key) => key === inputKey || key === systemKey };
}
