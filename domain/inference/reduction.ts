// Input reduction (spec 000, Endpoints: "Input reduction for titles", and Limits). Characters
// are Unicode code points (see text.ts).
//
// Decisions where the spec is silent (docs/inference-prompts.md, "Input reduction"):
// - A cut text keeps its head and tail, joined by a marker naming how many characters were
//   left out. The marker is not counted in the kept head or tail; it is counted in the chat
//   budget, because the budget bounds what the model reads.
// - A chat over its budget always keeps the first message (it states the topic) and the newest
//   (it shows where the chat went), then as many of the messages just before the newest as
//   fit. The messages left out are one run in the middle, rendered as a count. Since the first
//   and the newest are always kept, a chat may slightly exceed the budget: hence "about".
// - A preview's `thread` is reduced like a title's chat, so an item's context cannot crowd out
//   its newest message.
import type { Message } from './requests.ts';
import { codePoints } from './text.ts';

/** Limits, spec 000 "Limits". */
export const reductionLimits = {
  messageHead: 4_200,
  messageTail: 1_800,
  chatBudget: 12_000,
  bodyHead: 8_400,
  bodyTail: 3_600,
} as const;

export function cutMarker(omitted: number): string {
  return `\n(… ${omitted} ${omitted === 1 ? 'character' : 'characters'} not included …)\n`;
}

/** Keeps the first `head` and last `tail` characters, with a marker between them. */
export function keepHeadAndTail(text: string, head: number, tail: number): string {
  const chars = codePoints(text);
  if (chars.length <= head + tail) return text;
  const omitted = chars.length - head - tail;
  return chars.slice(0, head).join('') + cutMarker(omitted) + chars.slice(chars.length - tail).join('');
}

/** A title message's content: first 4,200 and last 1,800 characters. */
export function cutMessageContent(content: string): string {
  return keepHeadAndTail(content, reductionLimits.messageHead, reductionLimits.messageTail);
}

/** A preview body (and an agent action's long fields): first 8,400 and last 3,600 characters. */
export function cutBody(body: string): string {
  return keepHeadAndTail(body, reductionLimits.bodyHead, reductionLimits.bodyTail);
}

/**
 * A chat after reduction, in order: `head` (the first message, or every message when all
 * fit), then `omitted` messages left out, then `tail` (the newest messages that fit).
 */
export interface ReducedChat {
  head: Message[];
  omitted: number;
  tail: Message[];
}

function size(message: Message): number {
  return codePoints(message.content).length;
}

/** Cuts each message, then the chat to its budget (see the decisions above). */
export function reduceChat(
  messages: readonly Message[],
  budget: number = reductionLimits.chatBudget,
): ReducedChat {
  const cut = messages.map((m) => ({ ...m, content: cutMessageContent(m.content) }));
  const total = cut.reduce((sum, m) => sum + size(m), 0);
  const first = cut[0];
  if (total <= budget || first === undefined || cut.length <= 2) return { head: cut, omitted: 0, tail: [] };
  let remaining = budget - size(first);
  let start = cut.length - 1;
  remaining -= size(cut[start]!);
  while (start > 1 && size(cut[start - 1]!) <= remaining) {
    start -= 1;
    remaining -= size(cut[start]!);
  }
  return { head: [first], omitted: start - 1, tail: cut.slice(start) };
}
