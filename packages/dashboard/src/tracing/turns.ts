// A session's trace as a turn of its conversation (tested in test/turns.unit.test.ts). A chat
// model is sent the whole conversation each time, so a turn's input repeats every message of the
// turns before it: the page shows what is new (the messages after the model's last answer in the
// input) and keeps the rest one click away.

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export interface SplitInput {
  /** The input as stored, or only its messages after the last assistant message. */
  latest: unknown;
  /** The messages before those, up to the last assistant message; none for an input of no history. */
  earlier: unknown[];
}

/**
 * `{ messages }` split after its last assistant message, when messages follow it; any other input
 * (a `{ value }`, a first turn without an answer yet, one ending with the model's) is all latest.
 */
export function splitInput(content: unknown): SplitInput {
  if (!isRecord(content) || !Array.isArray(content.messages)) return { latest: content, earlier: [] };
  const messages: unknown[] = content.messages;
  const lastAnswer = messages.findLastIndex((message) => isRecord(message) && message.role === 'assistant');
  if (lastAnswer < 0 || lastAnswer === messages.length - 1) return { latest: content, earlier: [] };
  return {
    latest: { ...content, messages: messages.slice(lastAnswer + 1) },
    earlier: messages.slice(0, lastAnswer + 1),
  };
}
