// Fallback text (spec 000, Fallback text): the line answered, with `fallback: true`, when the
// model's line fails a check. One row per kind of request, in the table's order; the first row
// that applies builds the text.
//
// Decisions where the table is silent (docs/inference-prompts.md, "Fallback text"):
// - "the body's first line" is its first line that is not blank;
// - a subject, title or line without a word (letter or digit) is skipped, and a preview
//   with none of them falls back to the kind's name (`Email`,
//   `Document`, …), so the answer is never empty;
// - every fallback is made one line (runs of whitespace become one space), and the tool name
//   is used as sent otherwise.
import type { DocumentKind, Item, PreviewRequest } from './requests.ts';
import { cutAtWords, oneLine, words } from './text.ts';

export const titleFallback = 'New conversation';
export const previewFallbackWords = 15;

export const kindNames: Record<DocumentKind, string> = {
  email: 'Email',
  message: 'Message',
  ticket: 'Ticket',
  issue: 'Issue',
  event: 'Event',
  doc: 'Document',
};

export type FallbackRequest = { task: 'title' } | { task: 'preview'; request: PreviewRequest };

interface FallbackRow {
  /** The Request column of the table. */
  request: string;
  /** The text, or undefined when the row does not apply. */
  text: (request: FallbackRequest) => string | undefined;
}

function firstNonBlankLine(text: string | undefined): string | undefined {
  return text?.split(/\r\n|[\n\r\u0085\u2028\u2029]/u).find((line) => line.trim() !== '');
}

/** The subject, else the title, else the body's first line; undefined when none has words. */
export function previewSource(item: Item): string | undefined {
  return [item.subject, item.title, firstNonBlankLine(item.body)]
    .map((text) => oneLine(text ?? ''))
    .find((text) => words(text).length > 0);
}

export const fallbackTable: readonly FallbackRow[] = [
  { request: 'title', text: (r) => (r.task === 'title' ? titleFallback : undefined) },
  {
    request: 'preview, agent_action, no result',
    text: (r) =>
      r.task === 'preview' && r.request.kind === 'agent_action' && r.request.item.result == null
        ? `Running ${oneLine(r.request.item.tool)}…`
        : undefined,
  },
  {
    request: 'preview, agent_action, with a result',
    text: (r) =>
      r.task === 'preview' && r.request.kind === 'agent_action'
        ? `Ran ${oneLine(r.request.item.tool)}`
        : undefined,
  },
  {
    request: 'any other preview',
    text: (r) =>
      r.task === 'preview' && r.request.kind !== 'agent_action'
        ? cutAtWords(previewSource(r.request.item) ?? kindNames[r.request.kind], previewFallbackWords)
        : undefined,
  },
];

export function fallbackText(request: FallbackRequest): string {
  for (const row of fallbackTable) {
    const text = row.text(request);
    if (text !== undefined) return text;
  }
  // Unreachable: the table's rows cover every request.
  return titleFallback;
}
