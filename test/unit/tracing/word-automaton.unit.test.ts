import { describe, expect, it } from 'vitest';
import { wordsOfHint } from '../../../domain/tracing/credentials.ts';
import { WordAutomaton } from '../../../domain/tracing/word-automaton.ts';
import { seededBelow } from '../../harness/seeded-random.ts';

// What the automaton must answer, the slow way: letters A–Z folded, then a plain search per word.
const asciiLowerCase = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
const naivelyFound = (words: readonly string[], text: string) =>
  words.some((word) => asciiLowerCase(text).includes(asciiLowerCase(word)));

describe('WordAutomaton', () => {
  it.each([
    [['abcd', 'bc'], 'xabcx', true], // a word inside a longer word's path: found through its suffix
    [['abcd', 'bc'], 'abd', false],
    [['she', 'he', 'hers'], 'ushers', true],
    [['sk-ant-', 'sk-'], 'task-list', true],
    [['token'], 'a TOKEN', true], // letters in any case
    [['token'], 'toke', false],
    [['token'], '', false],
    [['key'], 'ke\u00e9y', false], // a character past ASCII is in no word
    [['key'], '\u212Aey', false], // the Kelvin sign is not k, as with a regex's i flag
    [['a?b'], 'xA?B', true], // punctuation is a character like any other
  ])('%j in %j: %s', (words, text, found) => {
    expect(new WordAutomaton(words).groupsIn(text) !== 0).toBe(found);
  });

  it('finds nothing with no words', () => {
    expect(new WordAutomaton([]).groupsIn('anything')).toBe(0);
  });

  it('refuses an empty word and one past ASCII', () => {
    expect(() => new WordAutomaton(['ok', ''])).toThrow('a word must be ASCII and not empty: ""');
    expect(() => new WordAutomaton(['caf\u00e9'])).toThrow('a word must be ASCII and not empty');
  });

  it('agrees with a plain search on random words and texts over a small alphabet', () => {
    const below = seededBelow(7);
    const drawn = (alphabet: string, length: number) =>
      Array.from({ length }, () => alphabet[below(alphabet.length)]).join('');
    let found = 0;
    for (let round = 0; round < 300; round += 1) {
      const words = Array.from({ length: 1 + below(6) }, () => drawn('abc', 1 + below(4)));
      const automaton = new WordAutomaton(words);
      for (let text = 0; text < 30; text += 1) {
        const sample = drawn('abcABd', below(10));
        const expected = naivelyFound(words, sample);
        expect(automaton.groupsIn(sample) !== 0, `${JSON.stringify(words)} in ${sample}`).toBe(expected);
        if (expected) found += 1;
      }
    }
    expect(found).toBeGreaterThan(900);
    expect(found).toBeLessThan(8_100);
  });

  it('names the groups whose words occur, a word found through a longer one included', () => {
    const automaton = new WordAutomaton(['abcd', 'bc', 'key', 'sk-'], [0, 3, 3, 30]);
    expect(automaton.groupsIn('xabcx')).toBe(1 << 3);
    expect(automaton.groupsIn('abcd')).toBe((1 << 0) | (1 << 3));
    expect(automaton.groupsIn('okey task-')).toBe((1 << 3) | (1 << 30));
    expect(automaton.groupsIn('nothing')).toBe(0);
  });

  it('agrees with a plain search per group on random words, groups and texts', () => {
    const below = seededBelow(11);
    const drawn = (alphabet: string, length: number) =>
      Array.from({ length }, () => alphabet[below(alphabet.length)]).join('');
    const seen = new Set<number>();
    for (let round = 0; round < 300; round += 1) {
      const words = Array.from({ length: 1 + below(6) }, () => drawn('abc', 1 + below(4)));
      const groups = words.map(() => below(4));
      const automaton = new WordAutomaton(words, groups);
      for (let text = 0; text < 30; text += 1) {
        const sample = drawn('abcABd', below(10));
        const expected = words.reduce(
          (bits, word, index) => (naivelyFound([word], sample) ? bits | (1 << groups[index]!) : bits),
          0,
        );
        expect(automaton.groupsIn(sample), `${JSON.stringify(words)} ${groups} in ${sample}`).toBe(expected);
        seen.add(expected);
      }
    }
    // Every combination of the four groups came up.
    expect(seen.size).toBe(16);
  });

  it('refuses a group past 30, where a bit of a 32-bit integer would be its sign', () => {
    expect(() => new WordAutomaton(['ok'], [31])).toThrow("a word's group is 0 to 30: 31");
  });
});

describe('wordsOfHint', () => {
  it.each([
    ['PRIVATE KEY', ['PRIVATE KEY']],
    ['AKIA|ASIA', ['AKIA', 'ASIA']],
    ['[?&](?:pass|id_)', ['?pass', '?id_', '&pass', '&id_']],
    ['gh[pousr]_|github_pat_', ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_']],
    ['hooks\\.slack\\.com', ['hooks.slack.com']],
    ['_(?:live|test)_', ['_live_', '_test_']],
  ])('%s', (source, words) => {
    expect(wordsOfHint(source)).toEqual(words);
  });

  it.each([
    ['sk-[abc]+', 'a hint repeats nothing'],
    ['ab?', 'a hint repeats nothing'],
    ['\\d', 'a hint escapes punctuation only'],
    ['[a-z]', "a hint's class lists characters"],
    ['(ab)', "a hint's groups are (?:…)"],
    ['a.b', "a hint's characters are literal"],
    ['(?:ab', "a hint's group is not closed"],
    ['ab)c', 'a hint closes a group it did not open'],
  ])('refuses %s', (source, message) => {
    expect(() => wordsOfHint(source)).toThrow(message);
  });
});
