import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseJsonText } from '../../../domain/tracing/io/messages.ts';

// parseJsonText skips JSON.parse for a text it certainly refuses (its thrown SyntaxError is the
// cost): it may skip only there, so it answers exactly as "JSON.parse, or the text".
const parsedOrText = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

describe('parseJsonText', () => {
  afterEach(() => vi.restoreAllMocks());

  it.each([
    '',
    ' \t\r\n',
    '{"city":"Paris"}',
    '\n\t {"a":[1,2]}',
    '[1]',
    '\r\n[ ]',
    '"quoted"',
    '"unterminated',
    '42',
    '0',
    '-1.5e3',
    '-x',
    '2 apples',
    'true',
    ' true\n',
    'false',
    'null',
    'nullish',
    'falsy',
    'the end',
    'true\u00a0',
    '\u00a0true',
    '\ufeff{"a":1}',
    '{',
    ']',
    'Paris is the capital of France.',
    '«quoted»',
  ])('answers %j as JSON.parse, or the text, would', (text) => {
    expect(parseJsonText(text)).toEqual(parsedOrText(text));
  });

  it('returns prose without handing it to JSON.parse', () => {
    const parse = vi.spyOn(JSON, 'parse');
    expect(parseJsonText('What is the capital of France?')).toBe('What is the capital of France?');
    expect(parseJsonText('  no, not JSON')).toBe('  no, not JSON');
    expect(parse).not.toHaveBeenCalled();
  });
});
