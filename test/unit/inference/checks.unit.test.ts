import { describe, expect, it } from 'vitest';
import {
  checkPreview,
  checkTitle,
  cleanPreview,
  cleanTitle,
  hasEmoji,
  hasQuotes,
  previewRules,
  stripWrappingQuotes,
  titleRules,
} from '../../../domain/inference/checks.ts';

const repeatWords = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

describe('output checks: title', () => {
  it('has the rows of the spec table, in order', () => {
    expect(titleRules.map((r) => r.name)).toEqual([
      '2 to 8 words',
      'no quotes',
      'no emoji',
      'no full stop at the end',
      'English',
      'one line',
    ]);
  });

  it.each([
    { line: 'Password reset help', failed: undefined },
    { line: 'Reset', failed: '2 to 8 words' },
    { line: 'Reset password', failed: undefined },
    { line: repeatWords(8), failed: undefined },
    { line: repeatWords(9), failed: '2 to 8 words' },
    { line: 'Reset — password', failed: undefined },
    { line: 'Reset —', failed: '2 to 8 words' },
    { line: '', failed: '2 to 8 words' },
    { line: 'The "best" plan', failed: 'no quotes' },
    { line: 'The “best” plan', failed: 'no quotes' },
    { line: 'The «best» plan', failed: 'no quotes' },
    { line: "The 'best' plan", failed: 'no quotes' },
    { line: 'The ‘best’ plan', failed: 'no quotes' },
    { line: "The user's guide", failed: undefined },
    { line: 'The user’s guide', failed: undefined },
    { line: "The users' guide", failed: undefined },
    { line: "Don't panic guide", failed: undefined },
    { line: 'Trip planning ✈️', failed: 'no emoji' },
    { line: 'Party time 🎉', failed: 'no emoji' },
    { line: 'Flags 🇫🇷 and more', failed: 'no emoji' },
    { line: 'Password reset help.', failed: 'no full stop at the end' },
    { line: 'Password reset help…', failed: undefined },
    { line: 'Node.js upgrade notes', failed: undefined },
    { line: 'Сброс пароля', failed: 'English' },
    { line: 'Restablecer la contraseña de la cuenta', failed: 'English' },
    { line: 'Password reset\nhelp', failed: 'one line' },
    { line: 'Password reset\u2028help', failed: 'one line' },
  ])('"$line" fails $failed', ({ line, failed }) => {
    expect(checkTitle(line)).toEqual(failed === undefined ? { ok: true } : { ok: false, failed });
  });
});

describe('output checks: preview', () => {
  it('has the rows of the spec table, in order', () => {
    expect(previewRules.map((r) => r.name)).toEqual([
      '1 to 20 words',
      'at most 160 characters',
      'English',
      'one line',
    ]);
  });

  const chars = (n: number) => 'abcdefghi '.repeat(16).slice(0, n - 1) + 'z';
  it.each([
    { line: 'Bob sent the Q3 plan.', failed: undefined },
    { line: 'Done', failed: undefined },
    { line: '', failed: '1 to 20 words' },
    { line: '…', failed: '1 to 20 words' },
    { line: repeatWords(20), failed: undefined },
    { line: repeatWords(21), failed: '1 to 20 words' },
    { line: chars(160), failed: undefined },
    { line: chars(161), failed: 'at most 160 characters' },
    { line: `${'a'.repeat(10)} ${'😀'.repeat(149)}`, failed: undefined },
    { line: `${'a'.repeat(10)} ${'😀'.repeat(150)}`, failed: 'at most 160 characters' },
    { line: 'He said "ship it" today', failed: undefined },
    { line: 'Party time 🎉', failed: undefined },
    { line: 'Bob demande le plan pour la réunion', failed: 'English' },
    { line: 'Bob fragt nach dem Plan für das Treffen', failed: 'English' },
    { line: 'Bob 送来了计划', failed: 'English' },
    { line: 'Bob sent\nthe plan', failed: 'one line' },
    { line: 'Bob sent\r\nthe plan', failed: 'one line' },
  ])('"$line" fails $failed', ({ line, failed }) => {
    expect(checkPreview(line)).toEqual(failed === undefined ? { ok: true } : { ok: false, failed });
  });

  it('measures the character edge cases it claims to', () => {
    expect(chars(160)).toHaveLength(160);
    expect(chars(161)).toHaveLength(161);
  });
});

describe('quotes', () => {
  it.each([
    { line: 'plain text', quoted: false },
    { line: 'a "b" c', quoted: true },
    { line: 'a " c', quoted: true },
    { line: 'a „b“ c', quoted: true },
    { line: 'a ‹b› c', quoted: true },
    { line: "'Hello' world", quoted: true },
    { line: "say 'hi'.", quoted: true },
    { line: '(‘maybe’)', quoted: true },
    { line: "user's guide", quoted: false },
    { line: "the users' guide", quoted: false },
    { line: "'90s music", quoted: false },
    { line: "it's the boss's idea", quoted: false },
    { line: 'rock ’n’ roll', quoted: false },
  ])('"$line": $quoted', ({ line, quoted }) => {
    expect(hasQuotes(line)).toBe(quoted);
  });
});

describe('emoji', () => {
  it.each([
    { line: 'plain', emoji: false },
    { line: '😀', emoji: true },
    { line: '❤', emoji: true },
    { line: '🇯🇵', emoji: true },
    { line: '\u{1F1E6}', emoji: true },
    { line: 'Ω ≠ ∑ → é', emoji: false },
  ])('"$line": $emoji', ({ line, emoji }) => {
    expect(hasEmoji(line)).toBe(emoji);
  });
});

describe('cleanup before checking', () => {
  it.each([
    { raw: '  Password reset help \n', title: 'Password reset help' },
    { raw: 'Title: Password reset help', title: 'Password reset help' },
    { raw: 'TITLE:Password reset help', title: 'Password reset help' },
    { raw: 'title : "Password reset help"', title: 'Password reset help' },
    { raw: '"Password reset help"', title: 'Password reset help' },
    { raw: '“Password reset help”', title: 'Password reset help' },
    { raw: '«Password reset help»', title: 'Password reset help' },
    { raw: "'Password reset help'", title: 'Password reset help' },
    { raw: 'Password \t reset   help', title: 'Password reset help' },
    // Not hidden: inner quotes, two lines, a full stop, a label of the other task.
    { raw: '"Password" and "reset"', title: '"Password" and "reset"' },
    { raw: 'Password reset\nhelp', title: 'Password reset\nhelp' },
    { raw: 'Password reset help.', title: 'Password reset help.' },
    { raw: 'Preview: Password reset', title: 'Preview: Password reset' },
    { raw: 'Subtitle: Password reset', title: 'Subtitle: Password reset' },
  ])('cleanTitle($raw)', ({ raw, title }) => {
    expect(cleanTitle(raw)).toBe(title);
  });

  it.each([
    { raw: 'Preview: Bob sent the plan', preview: 'Bob sent the plan' },
    { raw: '  "Bob sent the plan."  ', preview: 'Bob sent the plan.' },
    { raw: 'Title: Bob sent the plan', preview: 'Title: Bob sent the plan' },
    { raw: 'Bob  sent\n\nthe plan', preview: 'Bob sent\n\nthe plan' },
  ])('cleanPreview($raw)', ({ raw, preview }) => {
    expect(cleanPreview(raw)).toBe(preview);
  });

  it.each([
    { line: '"', stripped: '"' },
    { line: '""', stripped: '' },
    { line: '"a', stripped: '"a' },
    { line: '„a“', stripped: 'a' },
    { line: '»a«', stripped: 'a' },
  ])('stripWrappingQuotes($line)', ({ line, stripped }) => {
    expect(stripWrappingQuotes(line)).toBe(stripped);
  });
});
