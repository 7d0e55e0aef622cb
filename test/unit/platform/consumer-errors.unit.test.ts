import { describe, expect, it } from 'vitest';
import { isTransientStoreError } from '../../../consumers/errors.ts';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('which store errors the consumer runtime retries', () => {
  it.each([
    ['connection refused', withCode('ECONNREFUSED')],
    ['connection reset', withCode('ECONNRESET')],
    ['postgres connection failure (08006)', withCode('08006')],
    ['postgres serialization failure', withCode('40001')],
    ['postgres admin shutdown', withCode('57P01')],
    ['clickhouse too many simultaneous queries', withCode('202')],
    ['a wrapped cause', new Error('insert failed', { cause: withCode('ETIMEDOUT') })],
    ['a socket hang up', new Error('socket hang up')],
  ])('retries %s', (_, error) => {
    expect(isTransientStoreError(error)).toBe(true);
  });

  it.each([
    ['postgres unique violation', withCode('23505')],
    ['postgres check violation', withCode('23514')],
    ['clickhouse syntax error', withCode('62')],
    ['a plain bug', new TypeError('cannot read properties of undefined')],
    ['not an error', 'oops'],
  ])('does not retry %s', (_, error) => {
    expect(isTransientStoreError(error)).toBe(false);
  });
});
