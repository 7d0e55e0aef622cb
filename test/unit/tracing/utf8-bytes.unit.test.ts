import { describe, expect, it } from 'vitest';
import { utf8Bytes } from '../../../domain/tracing/truncation.ts';

// utf8Bytes counts short text itself for speed; it must agree with Buffer.byteLength everywhere.
describe('utf8Bytes', () => {
  it.each([
    ['', 0],
    ['span', 4],
    ['é', 2],
    ['€', 3],
    ['😀', 4],
    ['a😀b', 6],
    ['\ud800', 3],
    ['\udc00x', 4],
    ['x\ud800', 4],
    ['\ud800\ud800', 6],
  ])('counts %j as %i bytes, as Buffer.byteLength does', (text, bytes) => {
    expect(utf8Bytes(text)).toBe(bytes);
    expect(Buffer.byteLength(text)).toBe(bytes);
  });

  it('agrees with Buffer.byteLength on short and long text of every plane', () => {
    const units = ['a', 'é', '€', '\ud83d\ude00', '\ud800', '\udfff', '\u0000', '\uffff'];
    const texts: string[] = [];
    for (let length = 0; length < 90; length += 1) {
      texts.push(Array.from({ length }, (_, index) => units[(index * 7 + length) % units.length]).join(''));
    }
    for (const text of texts) expect(utf8Bytes(text)).toBe(Buffer.byteLength(text));
  });
});
