// The API's messages write a name between backticks, as markdown does (`` `item.tool` must not be
// empty ``). The dashboard shows such a name as code and interprets nothing else: the message is
// split at its backticks into parts that become text nodes, never HTML (test/message.unit.test.ts).

export type MessagePart = { text: string; code: boolean };

/**
 * A message's text and code parts, in order: what lies between two backticks is code; a backtick
 * without its pair, and an empty pair, stay as they were written.
 */
export function messageParts(message: string): MessagePart[] {
  const pieces = message.split('`');
  const parts: MessagePart[] = [];
  const text = (value: string) => {
    const last = parts.at(-1);
    if (last && !last.code) last.text += value;
    else if (value) parts.push({ text: value, code: false });
  };
  pieces.forEach((piece, index) => {
    const between = index % 2 === 1;
    if (!between) text(piece);
    else if (index === pieces.length - 1) text(`\`${piece}`);
    else if (piece === '') text('``');
    else parts.push({ text: piece, code: true });
  });
  return parts;
}
