import { describe, expect, it } from 'vitest';
import { limits } from '../../../domain/tracing/limits.ts';
import type { JsonValue } from '../../../domain/tracing/span.ts';
import { cutString, fitJson } from '../../../domain/tracing/truncation.ts';
import { seededBelow } from '../../harness/seeded-random.ts';

const bytes = (text: string): number => Buffer.byteLength(text);
const jsonBytes = (value: JsonValue): number => bytes(JSON.stringify(value));
const wellFormed = (text: string): boolean => Buffer.from(text).toString() === text;
const markerOf = /…\[truncated (\d+) bytes\]$/;

/** The kept prefix of a cut string, and the removed count its marker states. */
function parseCut(result: string): { kept: string; removed: number } {
  const match = markerOf.exec(result);
  if (!match) throw new Error(`no marker in ${result.slice(-40)}`);
  return { kept: result.slice(0, match.index), removed: Number(match[1]) };
}

describe('cutString', () => {
  it.each([
    ['256 ASCII bytes at 256', 'a'.repeat(256), 256],
    ['exactly 8 KiB at 8 KiB', 'b'.repeat(8192), 8192],
    ['empty string', '', 0],
    ['128 two-byte characters at 256', 'é'.repeat(128), 256],
    ['64 emoji at 256', '😀'.repeat(64), 256],
  ])('keeps %s unchanged', (_, text, max) => {
    expect(cutString(text, max)).toBe(text);
  });

  it('cuts 257 bytes to 256 with the marker stating the bytes removed', () => {
    const result = cutString('a'.repeat(257), 256);
    expect(result).toBe(`${'a'.repeat(232)}…[truncated 25 bytes]`);
    expect(bytes(result)).toBeLessThanOrEqual(256);
  });

  it('cuts one byte over 8 KiB', () => {
    const result = cutString('b'.repeat(8193), 8192);
    const { kept, removed } = parseCut(result);
    expect(bytes(result)).toBeLessThanOrEqual(8192);
    expect(removed).toBe(8193 - bytes(kept));
    expect(bytes(result)).toBeGreaterThan(8192 - 4);
  });

  // The budget for the kept text at 256 bytes is 232 (24 reserved for the longest marker).
  it.each([
    ['a two-byte character', 'a'.repeat(231) + 'é' + 'x'.repeat(100), 231],
    ['a three-byte character', 'a'.repeat(230) + '語' + 'x'.repeat(100), 230],
    ['a surrogate pair (emoji)', 'a'.repeat(229) + '😀' + 'x'.repeat(100), 229],
    ['an emoji ending exactly at the budget', 'a'.repeat(228) + '😀' + 'x'.repeat(100), 232],
  ])('never splits %s straddling the cut', (_, text, keptBytes) => {
    const result = cutString(text, 256);
    const { kept, removed } = parseCut(result);
    expect(wellFormed(kept)).toBe(true);
    expect(text.startsWith(kept)).toBe(true);
    expect(bytes(kept)).toBe(keptBytes);
    expect(removed).toBe(bytes(text) - keptBytes);
    expect(bytes(result)).toBeLessThanOrEqual(256);
  });

  it('keeps no marker when even the marker does not fit', () => {
    expect(cutString('abcdefghijklmnopqrstuvwxyz', 10)).toBe('abcdefghij');
  });

  it('holds its promises on random text of every width', () => {
    const alphabet = ['a', 'é', '語', '😀', '"', '\n', '\\'];
    const random = seededBelow(7);
    for (let round = 0; round < 300; round++) {
      const text = Array.from({ length: 20 + random(400) }, () => alphabet[random(alphabet.length)]).join('');
      const max = 32 + random(600);
      const result = cutString(text, max);
      expect(bytes(result)).toBeLessThanOrEqual(max);
      if (bytes(text) <= max) {
        expect(result).toBe(text);
        continue;
      }
      const { kept, removed } = parseCut(result);
      expect(text.startsWith(kept) && wellFormed(kept)).toBe(true);
      expect(removed).toBe(bytes(text) - bytes(kept));
    }
  });
});

describe('fitJson', () => {
  it('returns a value that fits as it is, not truncated', () => {
    const value = { messages: [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }] };
    const result = fitJson(value, jsonBytes(value));
    expect(result).toEqual({ value, truncated: false });
  });

  it('cuts the longest strings first and leaves the short ones whole', () => {
    const value = { a: 'x'.repeat(5000), b: 'y'.repeat(300), c: 'short', n: 42 };
    const result = fitJson(value, 1000);
    const fitted = result.value as { a: string; b: string; c: string; n: number };
    expect(result.truncated).toBe(true);
    expect(jsonBytes(result.value)).toBeLessThanOrEqual(1000);
    expect(fitted.b).toBe(value.b);
    expect(fitted.c).toBe('short');
    expect(fitted.n).toBe(42);
    expect(parseCut(fitted.a).kept).toMatch(/^x+$/);
    expect(jsonBytes(result.value)).toBeGreaterThan(1000 - 8);
  });

  it('cuts two long strings to the same length cap', () => {
    const value = ['p'.repeat(4000), 'q'.repeat(3000), 'r'.repeat(50)];
    const result = fitJson(value, 2000);
    const [p, q, r] = result.value as string[];
    expect(jsonBytes(result.value)).toBeLessThanOrEqual(2000);
    expect(Math.abs(bytes(p!) - bytes(q!))).toBeLessThanOrEqual(1);
    expect(r).toBe(value[2]);
  });

  it('counts JSON escapes when measuring', () => {
    const value = { text: '"\\\n\u0001'.repeat(2000), emoji: '😀'.repeat(500) };
    const result = fitJson(value, 3000);
    expect(jsonBytes(result.value)).toBeLessThanOrEqual(3000);
    expect(jsonBytes(result.value)).toBeGreaterThan(3000 - 64);
  });

  it('falls back to a cut string of the JSON text when strings alone cannot fit', () => {
    const value = Array.from({ length: 10_000 }, (_, i) => i);
    const result = fitJson(value, 1000);
    expect(result.truncated).toBe(true);
    expect(typeof result.value).toBe('string');
    expect(jsonBytes(result.value)).toBeLessThanOrEqual(1000);
    expect(parseCut(result.value as string).kept).toBe(
      JSON.stringify(value).slice(0, parseCut(result.value as string).kept.length),
    );
  });

  it('fits a 1 MiB document of many strings into 128 KiB', () => {
    const value = {
      messages: Array.from({ length: 2000 }, (_, i) => ({
        role: 'user',
        content: `${i} ${'w'.repeat(i % 1000)}`,
      })),
      big: 'z'.repeat(1024 * 1024),
    };
    const result = fitJson(value, limits.inputOutputBytes);
    expect(result.truncated).toBe(true);
    expect(jsonBytes(result.value)).toBeLessThanOrEqual(limits.inputOutputBytes);
    const fitted = result.value as typeof value;
    expect(fitted.messages[1]).toEqual(value.messages[1]);
    expect(parseCut(fitted.big).kept).toMatch(/^z+$/);
  });
});
