// Marking the reader (spec 000, Preview request body: `reader`): wherever the reader's name
// appears in the item it is marked (you), so the model writes about the reader's own messages
// in the second person. Without a reader nobody is marked.
//
// Where it appears: the names in `from`, `to` and `cc`, and the `name` of each thread message.
// Free text (subject, body, message content) is left as sent: marking words inside prose would
// change what was written and misfire on names that are also words.
//
// How a name matches: `from`, `to` and `cc` are split on commas; an entry is the reader when,
// ignoring case and surrounding spaces, it equals the reader's name, or its display name or its
// address in the `Name <address>` form does. Only whole entries match: `Ana` does not match
// `Anabel` or `Ana Lopez`.

export const youMark = ' (you)';

function comparable(name: string): string {
  return name.normalize('NFC').trim().replace(/\s+/gu, ' ').toLowerCase();
}

const mailbox = /^(.*?)\s*<([^<>]*)>$/u;

/** The forms an entry can be recognised by: itself, and for `Name <address>` both parts. */
function entryForms(entry: string): string[] {
  const match = mailbox.exec(entry.trim());
  if (match === null) return [comparable(entry)];
  return [comparable(entry), comparable(match[1] ?? ''), comparable(match[2] ?? '')];
}

/** True when `entry` names the reader. An empty or blank reader names nobody. */
export function isReader(entry: string, reader: string | undefined): boolean {
  if (reader === undefined) return false;
  const wanted = comparable(reader);
  return wanted !== '' && entryForms(entry).includes(wanted);
}

/** A name, with ` (you)` appended when it is the reader's. */
export function markName(name: string, reader: string | undefined): string {
  return isReader(name, reader) ? name + youMark : name;
}

/** A comma-separated list of names, each trimmed, the reader's marked; empty entries dropped. */
export function markNames(names: string, reader: string | undefined): string {
  return names
    .split(',')
    .map((entry) => entry.trim().replace(/\s+/gu, ' '))
    .filter((entry) => entry !== '')
    .map((entry) => markName(entry, reader))
    .join(', ');
}
