import { describe, expect, it } from 'vitest';
import { characterCount, cutAtWords, isWord, oneLine, words } from '../../../domain/inference/text.ts';

describe('characters are code points', () => {
  it.each([
    { text: '', count: 0 },
    { text: 'abc', count: 3 },
    { text: '😀', count: 1 },
    { text: 'e\u0301', count: 2 },
    { text: '👍🏽', count: 2 },
  ])('"$text" has $count', ({ text, count }) => {
    expect(characterCount(text)).toBe(count);
  });
});

describe('words: whitespace-separated tokens with a letter or digit', () => {
  it.each([
    { token: 'word', word: true },
    { token: 'Q3', word: true },
    { token: '42', word: true },
    { token: "user's", word: true },
    { token: '—', word: false },
    { token: '...', word: false },
    { token: '🎉', word: false },
  ])('"$token": $word', ({ token, word }) => {
    expect(isWord(token)).toBe(word);
  });

  it('counts words in a line', () => {
    expect(words('  Bob — sent\tthe plan 🎉 ')).toEqual(['Bob', 'sent', 'the', 'plan']);
  });

  it.each([
    { text: 'a b c d', limit: 2, cut: 'a b' },
    { text: 'a b', limit: 2, cut: 'a b' },
    { text: 'a — b c', limit: 2, cut: 'a — b' },
    { text: 'a b — c', limit: 2, cut: 'a b' },
    { text: ' a\n b ', limit: 15, cut: 'a b' },
  ])('cutAtWords("$text", $limit) = "$cut"', ({ text, limit, cut }) => {
    expect(cutAtWords(text, limit)).toBe(cut);
  });

  it('makes text one line', () => {
    expect(oneLine(' a\n\tb  c ')).toBe('a b c');
  });
});
