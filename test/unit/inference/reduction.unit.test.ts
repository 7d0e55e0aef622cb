import { describe, expect, it } from 'vitest';
import {
  cutBody,
  cutMarker,
  cutMessageContent,
  keepHeadAndTail,
  reduceChat,
  reductionLimits,
} from '../../../domain/inference/reduction.ts';
import type { Message } from '../../../domain/inference/requests.ts';
import { characterCount } from '../../../domain/inference/text.ts';

/** `length` characters: `a`s when nothing is cut, else `H` head, `m` middle, `T` tail. */
function sample(length: number, head: number, tail: number): string {
  if (length <= head + tail) return 'a'.repeat(length);
  return 'H'.repeat(head) + 'm'.repeat(length - head - tail) + 'T'.repeat(tail);
}

describe('cutMessageContent: first 4,200 and last 1,800 characters', () => {
  it.each([
    { length: 0, omitted: 0 },
    { length: 6_000, omitted: 0 },
    { length: 6_001, omitted: 1 },
    { length: 20_000, omitted: 14_000 },
  ])('$length characters leave out $omitted', ({ length, omitted }) => {
    const source = sample(length, 4_200, 1_800);
    const expected = omitted === 0 ? source : 'H'.repeat(4_200) + cutMarker(omitted) + 'T'.repeat(1_800);
    expect(cutMessageContent(source)).toBe(expected);
  });

  it('counts a surrogate pair as one character and never splits it', () => {
    const emoji = '😀'; // two UTF-16 units, one code point
    const source = emoji.repeat(6_001);
    const out = cutMessageContent(source);
    expect(out).toBe(emoji.repeat(4_200) + cutMarker(1) + emoji.repeat(1_800));
    expect(cutMessageContent(emoji.repeat(6_000))).toBe(emoji.repeat(6_000));
  });

  it('names the characters left out in its marker', () => {
    expect(cutMarker(1)).toBe('\n(… 1 character not included …)\n');
    expect(cutMarker(14_000)).toBe('\n(… 14000 characters not included …)\n');
  });
});

describe('cutBody: first 8,400 and last 3,600 characters', () => {
  it.each([
    { length: 11_999, omitted: 0 },
    { length: 12_000, omitted: 0 },
    { length: 12_001, omitted: 1 },
    { length: 15_000, omitted: 3_000 },
  ])('$length characters leave out $omitted', ({ length, omitted }) => {
    const source = sample(length, 8_400, 3_600);
    const expected = omitted === 0 ? source : 'H'.repeat(8_400) + cutMarker(omitted) + 'T'.repeat(3_600);
    expect(cutBody(source)).toBe(expected);
  });

  it('keeps head and tail of the given sizes', () => {
    expect(keepHeadAndTail('abcdefg', 2, 3)).toBe('ab' + cutMarker(2) + 'efg');
    expect(keepHeadAndTail('abcde', 2, 3)).toBe('abcde');
    expect(reductionLimits).toEqual({
      messageHead: 4_200,
      messageTail: 1_800,
      chatBudget: 12_000,
      bodyHead: 8_400,
      bodyTail: 3_600,
    });
  });
});

function msg(index: number, length: number): Message {
  return { role: index % 2 === 0 ? 'user' : 'assistant', content: String(index % 10).repeat(length) };
}

function contents(messages: readonly Message[]): string[] {
  return messages.map((m) => m.content);
}

describe('reduceChat: about 12,000 characters, the rest counted', () => {
  it('keeps a chat of exactly 12,000 characters whole', () => {
    const chat = [msg(0, 4_000), msg(1, 4_000), msg(2, 4_000)];
    expect(reduceChat(chat)).toEqual({ head: chat, omitted: 0, tail: [] });
  });

  it('at 12,001 characters leaves out a middle message and counts it', () => {
    const chat = [msg(0, 4_000), msg(1, 4_000), msg(2, 4_001)];
    expect(reduceChat(chat)).toEqual({ head: [chat[0]], omitted: 1, tail: [chat[2]] });
  });

  it('keeps the first message and the newest ones that fit, in order', () => {
    const chat = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => msg(i, 2_000));
    const reduced = reduceChat(chat);
    expect(reduced.head).toEqual([chat[0]]);
    expect(reduced.omitted).toBe(2);
    expect(contents(reduced.tail)).toEqual(contents(chat.slice(3)));
    const kept = [...reduced.head, ...reduced.tail].reduce((n, m) => n + characterCount(m.content), 0);
    expect(kept).toBe(12_000);
  });

  it('counts the budget after each message is cut, marker included', () => {
    // Two long messages cut to 6,000 + marker each, and a short one between them.
    const chat = [msg(0, 9_000), msg(1, 10), msg(2, 9_000)];
    const reduced = reduceChat(chat);
    expect(reduced.omitted).toBe(1);
    expect(reduced.head[0]?.content).toBe(cutMessageContent(chat[0]!.content));
    expect(reduced.tail[0]?.content).toBe(cutMessageContent(chat[2]!.content));
  });

  it.each([
    { chat: [msg(0, 9_000)], kept: 1 },
    { chat: [msg(0, 9_000), msg(1, 9_000)], kept: 2 },
  ])('always keeps the first and the newest message ($kept kept)', ({ chat, kept }) => {
    const reduced = reduceChat(chat);
    expect(reduced.head.length + reduced.tail.length).toBe(kept);
    expect(reduced.omitted).toBe(0);
  });

  it('takes the budget as an argument', () => {
    const chat = [msg(0, 10), msg(1, 10), msg(2, 10), msg(3, 10)];
    expect(reduceChat(chat, 30)).toEqual({ head: [chat[0]], omitted: 1, tail: [chat[2], chat[3]] });
    expect(reduceChat(chat, 40)).toEqual({ head: chat, omitted: 0, tail: [] });
  });
});
