// The chat block shared by the title format (the chat to title) and the preview format (an item's thread):
// one paragraph per message, a speaker line in brackets, then the content as sent (after
// reduction). Messages left out by reduction are one line with their count.

import { markName } from './reader.ts';
import type { ReducedChat } from './reduction.ts';
import type { Message } from './requests.ts';
import { oneLine } from './text.ts';

/** `[Ana · user]`, `[user]`, `[Bob]`; the reader's name is marked `(you)`. */
export function speakerLine(message: Message, reader?: string): string {
  const name = oneLine(message.name ?? '');
  const parts = [name === '' ? undefined : markName(name, reader), message.role].filter(
    (p) => p !== undefined,
  );
  return `[${parts.join(' · ')}]`;
}

export function omittedLine(count: number): string {
  return `(… ${countMessages(count)} not included …)`;
}

function renderMessage(message: Message, reader?: string): string {
  return `${speakerLine(message, reader)}\n${message.content}`;
}

/** The paragraphs of a reduced chat, separated by blank lines. */
export function renderChat(chat: ReducedChat, reader?: string): string {
  const paragraphs = [
    ...chat.head.map((m) => renderMessage(m, reader)),
    ...(chat.omitted > 0 ? [omittedLine(chat.omitted)] : []),
    ...chat.tail.map((m) => renderMessage(m, reader)),
  ];
  return paragraphs.join('\n\n');
}

export function chatSize(chat: ReducedChat): number {
  return chat.head.length + chat.omitted + chat.tail.length;
}

export function countMessages(count: number): string {
  return `${count} ${count === 1 ? 'message' : 'messages'}`;
}
