import { describe, expect, it } from 'vitest';
import { capOutput, execOutputLimitBytes, execResult } from '../../../domain/sandboxes/exec.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);

describe('exec output cap', () => {
  it.each([
    ['exactly at the limit', 'abcd', 4, 'abcd', false],
    ['one byte past it', 'abcde', 4, 'abcd', true],
    ['a two-byte character straddling the cut', 'abcé', 4, 'abc', true],
    ['a two-byte character ending at the cut', 'abé', 4, 'abé', false],
    ['a four-byte character straddling the cut', 'a😀b', 3, 'a', true],
    ['a four-byte character ending at the cut', '😀b', 4, '😀', true],
    ['empty output', '', 4, '', false],
  ])('%s', (_name, text, limit, kept, truncated) => {
    expect(capOutput(utf8(text), limit)).toEqual({ text: kept, truncated });
  });

  it('is 1 MiB per stream by default', () => {
    expect(execOutputLimitBytes).toBe(1_048_576);
    expect(capOutput(new Uint8Array(execOutputLimitBytes).fill(0x61)).truncated).toBe(false);
    expect(capOutput(new Uint8Array(execOutputLimitBytes + 1).fill(0x61)).truncated).toBe(true);
  });

  it('says truncated when either stream lost bytes', () => {
    expect(execResult(0, utf8('ok'), utf8('warning!'), 4)).toEqual({
      exit_code: 0,
      stdout: 'ok',
      stderr: 'warn',
      truncated: true,
    });
    expect(execResult(2, utf8('ok'), utf8(''), 4)).toEqual({
      exit_code: 2,
      stdout: 'ok',
      stderr: '',
      truncated: false,
    });
  });
});
