// Cleanup and output checks of the model's line (spec 000, Output checks; Answer: `text` is
// one line, no quotes, no label). Definitions and cleanup: docs/inference-prompts.md.
//
// Cleanup only undoes how models commonly wrap a good answer (surrounding spaces, a label, one
// pair of wrapping quotes, runs of spaces). It never joins lines, drops a full stop or removes
// inner quotes: those are failures the checks must see.
import { isEnglish } from './english.ts';
import { characterCount, words } from './text.ts';

export type CheckResult = { ok: true } | { ok: false; failed: string };

interface Rule {
  /** The rule as the spec's Output checks table words it; reported when it fails. */
  name: string;
  holds: (line: string) => boolean;
}

export const outputLimits = {
  titleWords: { min: 2, max: 8 },
  previewWords: { min: 1, max: 20 },
  previewCharacters: 160,
} as const;

const lineBreak = /[\n\r\v\f\u0085\u2028\u2029]/u;
const horizontalSpaces = /[^\S\n\r\v\f\u0085\u2028\u2029]+/gu;

// Double quotes: ASCII and fullwidth, typographic, and guillemets (double and single).
const doubleQuote = /["“”„‟＂〝〞«»‹›]/u;
// A single quote is a quotation mark only as a pair: one opening a word (at the start, or after
// a space or bracket) and a later one closing a word (at the end, or before a space or
// punctuation). Apostrophes inside or after a word (user's, users') are not quotes.
const singleQuotePair = /(?:^|[\s([{])['‘‚‛](?=[\p{L}\p{N}])[\s\S]*?\S['’‛](?=$|[\s\p{P}])/u;
const emoji = /[\p{Extended_Pictographic}\p{Regional_Indicator}]/u;

export function isOneLine(line: string): boolean {
  return !lineBreak.test(line);
}

export function hasQuotes(line: string): boolean {
  return doubleQuote.test(line) || singleQuotePair.test(line);
}

export function hasEmoji(line: string): boolean {
  return emoji.test(line);
}

function wordCountBetween(min: number, max: number): (line: string) => boolean {
  return (line) => {
    const count = words(line).length;
    return count >= min && count <= max;
  };
}

/** Output checks: title. */
export const titleRules: readonly Rule[] = [
  { name: '2 to 8 words', holds: wordCountBetween(outputLimits.titleWords.min, outputLimits.titleWords.max) },
  { name: 'no quotes', holds: (line) => !hasQuotes(line) },
  { name: 'no emoji', holds: (line) => !hasEmoji(line) },
  { name: 'no full stop at the end', holds: (line) => !line.endsWith('.') },
  { name: 'English', holds: isEnglish },
  { name: 'one line', holds: isOneLine },
];

/** Output checks: preview. */
export const previewRules: readonly Rule[] = [
  {
    name: '1 to 20 words',
    holds: wordCountBetween(outputLimits.previewWords.min, outputLimits.previewWords.max),
  },
  {
    name: 'at most 160 characters',
    holds: (line) => characterCount(line) <= outputLimits.previewCharacters,
  },
  { name: 'English', holds: isEnglish },
  { name: 'one line', holds: isOneLine },
];

/** The first rule of the table that the line breaks, in the table's order. */
export function runChecks(rules: readonly Rule[], line: string): CheckResult {
  const broken = rules.find((rule) => !rule.holds(line));
  return broken === undefined ? { ok: true } : { ok: false, failed: broken.name };
}

export function checkTitle(line: string): CheckResult {
  return runChecks(titleRules, line);
}

export function checkPreview(line: string): CheckResult {
  return runChecks(previewRules, line);
}

// Quote pairs that may wrap a whole answer: [opening, closing].
const wrappingPairs: readonly (readonly [string, string])[] = [
  ['"', '"'],
  ['“', '”'],
  ['„', '“'],
  ['«', '»'],
  ['»', '«'],
  ['‹', '›'],
  ["'", "'"],
  ['‘', '’'],
];

/** Removes one pair of quotes around the whole line, if neither quote occurs inside it. */
export function stripWrappingQuotes(line: string): string {
  for (const [open, close] of wrappingPairs) {
    if (line.length < 2 || !line.startsWith(open) || !line.endsWith(close)) continue;
    const inner = line.slice(open.length, line.length - close.length);
    if (!inner.includes(open) && !inner.includes(close)) return inner;
  }
  return line;
}

function dropLabel(line: string, label: string): string {
  return line.replace(new RegExp(`^${label}\\s*:`, 'iu'), '');
}

function clean(raw: string, label: string): string {
  const unlabelled = dropLabel(raw.trim(), label).trim();
  return stripWrappingQuotes(unlabelled).trim().replace(horizontalSpaces, ' ');
}

/** Trim, drop a leading `Title:`, strip one pair of wrapping quotes, collapse runs of spaces. */
export function cleanTitle(raw: string): string {
  return clean(raw, 'title');
}

/** Trim, drop a leading `Preview:`, strip one pair of wrapping quotes, collapse runs of spaces. */
export function cleanPreview(raw: string): string {
  return clean(raw, 'preview');
}
