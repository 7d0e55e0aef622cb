import { describe, expect, it } from 'vitest';
import {
  attributesToJson,
  findAttribute,
  fromJson,
  indexedGroups,
  isIndexedKey,
  readString,
  toJson,
} from '../../../domain/tracing/attributes.ts';
import type { AnyValue } from '../../../domain/tracing/otlp.ts';
import type { JsonValue } from '../../../domain/tracing/span.ts';
import { attrs, double } from './reading-fixtures.ts';

describe('toJson', () => {
  const maxSafe = BigInt(Number.MAX_SAFE_INTEGER);
  it.each<[string, AnyValue, JsonValue]>([
    ['a string', { kind: 'string', value: 'hé' }, 'hé'],
    ['a bool', { kind: 'bool', value: false }, false],
    ['an int', { kind: 'int', value: 42n }, 42],
    ['a negative int', { kind: 'int', value: -7n }, -7],
    ['the largest safe int', { kind: 'int', value: maxSafe }, Number.MAX_SAFE_INTEGER],
    ['one past the largest safe int', { kind: 'int', value: maxSafe + 1n }, '9007199254740992'],
    ['the smallest safe int', { kind: 'int', value: -maxSafe }, -Number.MAX_SAFE_INTEGER],
    ['one below the smallest safe int', { kind: 'int', value: -maxSafe - 1n }, '-9007199254740992'],
    ['int64 max', { kind: 'int', value: 9223372036854775807n }, '9223372036854775807'],
    ['a double', double(0.25), 0.25],
    ['NaN', double(Number.NaN), 'NaN'],
    ['infinity', double(Number.NEGATIVE_INFINITY), '-Infinity'],
    ['bytes', { kind: 'bytes', value: new Uint8Array([0xde, 0xad, 0xbe, 0xef]) }, '3q2+7w=='],
    ['empty bytes', { kind: 'bytes', value: new Uint8Array() }, ''],
    ['empty', { kind: 'empty' }, null],
    [
      'an array',
      {
        kind: 'array',
        values: [
          { kind: 'int', value: 1n },
          { kind: 'string', value: 'x' },
        ],
      },
      [1, 'x'],
    ],
    [
      'a kvlist',
      { kind: 'kvlist', values: attrs({ a: 1, b: { c: [true, null] } }) },
      { a: 1, b: { c: [true, null] } },
    ],
  ])('converts %s', (_, value, expected) => {
    expect(toJson(value)).toEqual(expected);
  });

  it('keeps the first of repeated keys, as findAttribute does', () => {
    const repeated = [...attrs({ k: 'first' }), ...attrs({ k: 'second' })];
    expect(attributesToJson(repeated)).toEqual({ k: 'first' });
    expect(findAttribute(repeated, 'k')).toEqual({ kind: 'string', value: 'first' });
  });
});

describe('fromJson', () => {
  it.each<[string, JsonValue, AnyValue]>([
    ['an integer', 3, { kind: 'int', value: 3n }],
    ['a fraction', 1.5, { kind: 'double', value: 1.5 }],
    ['an unsafe integer', 2 ** 60, { kind: 'double', value: 2 ** 60 }],
    ['null', null, { kind: 'empty' }],
    [
      'an object',
      { a: 'x' },
      { kind: 'kvlist', values: [{ key: 'a', value: { kind: 'string', value: 'x' } }] },
    ],
  ])('converts %s', (_, value, expected) => {
    expect(fromJson(value)).toEqual(expected);
  });

  it('is undone by toJson', () => {
    const value = {
      model: 'gpt-4o',
      tokens: 12,
      ratio: 0.5,
      tags: ['a', 'b'],
      nested: { ok: true, none: null },
    };
    expect(toJson(fromJson(value))).toEqual(value);
  });
});

describe('readString', () => {
  it.each<[string, AnyValue | undefined, string | undefined]>([
    ['a string', { kind: 'string', value: 'x' }, 'x'],
    ['an empty string', { kind: 'string', value: '' }, undefined],
    ['an int', { kind: 'int', value: 1n }, undefined],
    ['no attribute', undefined, undefined],
  ])('reads %s', (_, value, expected) => {
    const attributes = value === undefined ? [] : [{ key: 'k', value }];
    expect(readString(attributes, 'k')).toBe(expected);
  });
});

describe('indexed families', () => {
  it.each<[string, boolean]>([
    ['gen_ai.prompt.0.role', true],
    ['gen_ai.prompt.12.tool_calls.0.name', true],
    ['gen_ai.prompt', false],
    ['gen_ai.prompt.0', false],
    ['gen_ai.prompt.x.role', false],
    ['gen_ai.prompt.-1.role', false],
    ['gen_ai.prompts.0.role', false],
    ['gen_ai.prompt..role', false],
  ])('%s is a member: %s', (key, expected) => {
    expect(isIndexedKey('gen_ai.prompt', key)).toBe(expected);
  });

  it('groups members by numeric index, in index order, with the prefix removed', () => {
    const attributes = attrs({
      'p.10.role': 'c',
      'p.2.role': 'b',
      'p.2.content': 'two',
      'p.0.role': 'a',
      'q.0.role': 'other family',
    });
    expect(indexedGroups(attributes, 'p')).toEqual([
      attrs({ role: 'a' }),
      attrs({ role: 'b', content: 'two' }),
      attrs({ role: 'c' }),
    ]);
  });
});
