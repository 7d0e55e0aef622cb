import { describe, expect, it } from 'vitest';
import { messageParts } from '../src/api/message.ts';

describe("an API message's parts", () => {
  it('makes a name between backticks code, the rest text', () => {
    expect(messageParts('`item.tool` must not be empty')).toEqual([
      { text: 'item.tool', code: true },
      { text: ' must not be empty', code: false },
    ]);
    expect(messageParts('Line 2: Invalid `network.deny[1]`: give a host or a CIDR')).toEqual([
      { text: 'Line 2: Invalid ', code: false },
      { text: 'network.deny[1]', code: true },
      { text: ': give a host or a CIDR', code: false },
    ]);
  });

  it('leaves a message without backticks whole', () => {
    expect(messageParts('to must be after from')).toEqual([{ text: 'to must be after from', code: false }]);
    expect(messageParts('')).toEqual([]);
  });

  it('keeps a backtick without its pair, and an empty pair, as written', () => {
    expect(messageParts('`a` and `b')).toEqual([
      { text: 'a', code: true },
      { text: ' and `b', code: false },
    ]);
    expect(messageParts('quote `` here')).toEqual([{ text: 'quote `` here', code: false }]);
  });

  it('interprets nothing else: markup stays text', () => {
    expect(messageParts('<img src=x onerror=alert(1)> `<b>`')).toEqual([
      { text: '<img src=x onerror=alert(1)> ', code: false },
      { text: '<b>', code: true },
    ]);
  });
});
