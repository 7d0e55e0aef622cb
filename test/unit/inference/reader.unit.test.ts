import { describe, expect, it } from 'vitest';
import { isReader, markName, markNames } from '../../../domain/inference/reader.ts';

describe('isReader: whole names, any case', () => {
  it.each([
    { entry: 'Ana', reader: 'Ana', is: true },
    { entry: 'ANA', reader: 'ana', is: true },
    { entry: '  Ana  Lopez ', reader: 'ana lopez', is: true },
    { entry: 'Ana Lopez <ana@example.com>', reader: 'Ana Lopez', is: true },
    { entry: 'Ana Lopez <ana@example.com>', reader: 'ANA@example.com', is: true },
    { entry: '<ana@example.com>', reader: 'ana@example.com', is: true },
    { entry: 'José', reader: 'jose\u0301', is: true },
    { entry: 'Anabel', reader: 'Ana', is: false },
    { entry: 'Ana Lopez', reader: 'Ana', is: false },
    { entry: 'Ana', reader: undefined, is: false },
    { entry: '', reader: '', is: false },
    { entry: ' ', reader: '  ', is: false },
  ])('$entry is the reader $reader: $is', ({ entry, reader, is }) => {
    expect(isReader(entry, reader)).toBe(is);
  });
});

describe('markNames', () => {
  it.each([
    { names: 'Ana', reader: 'ana', marked: 'Ana (you)' },
    { names: 'Bob, Ana,Carol', reader: 'Ana', marked: 'Bob, Ana (you), Carol' },
    { names: 'Bob,, Carol ,', reader: 'Ana', marked: 'Bob, Carol' },
    { names: 'Ana, Ana', reader: 'Ana', marked: 'Ana (you), Ana (you)' },
    { names: 'Ana', reader: undefined, marked: 'Ana' },
  ])('$names → $marked', ({ names, reader, marked }) => {
    expect(markNames(names, reader)).toBe(marked);
  });

  it('marks a single name', () => {
    expect(markName('Bob', 'bob')).toBe('Bob (you)');
    expect(markName('Bob', 'Rob')).toBe('Bob');
  });
});
