// Text measures shared by reduction, rendering, checks and fallbacks. The spec counts
// "characters"; we count Unicode code points, so a surrogate pair (an emoji, a rare CJK
// character) is one character and is never split in two.

/** The text as an array of code points (each element is one whole character). */
export function codePoints(text: string): string[] {
  return Array.from(text);
}

/** Length in code points. */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** Whitespace-separated tokens, in order (no empty tokens). */
export function tokens(text: string): string[] {
  return text.split(/\s+/u).filter((token) => token !== '');
}

const letterOrDigit = /[\p{L}\p{N}]/u;

/** A word is a whitespace-separated token that contains at least one letter or digit. */
export function isWord(token: string): boolean {
  return letterOrDigit.test(token);
}

export function words(text: string): string[] {
  return tokens(text).filter(isWord);
}

/** Every run of whitespace (line breaks included) becomes one space; ends trimmed. */
export function oneLine(text: string): string {
  return tokens(text).join(' ');
}

/** Keeps tokens up to and including the `limit`-th word, joined by single spaces. */
export function cutAtWords(text: string, limit: number): string {
  const kept: string[] = [];
  let count = 0;
  for (const token of tokens(text)) {
    if (count === limit) break;
    kept.push(token);
    if (isWord(token)) count += 1;
  }
  return kept.join(' ');
}
