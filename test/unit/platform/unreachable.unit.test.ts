import { describe, expect, it } from 'vitest';
import { isClickHouseUnreachable } from '../../../platform/clickhouse.ts';
import { isPostgresUnreachable } from '../../../platform/postgres.ts';

const withCode = (code: string) => Object.assign(new Error(`failed: ${code}`), { code });

describe('a store that cannot be reached', () => {
  const socketCodes = [
    'ECONNREFUSED',
    'ECONNRESET',
    'EPIPE',
    'ETIMEDOUT',
    'EHOSTUNREACH',
    'ENETUNREACH',
    'ENOTFOUND',
    'EAI_AGAIN',
  ];

  it.each(socketCodes)('reads %s as away, for Postgres and ClickHouse alike', (code) => {
    expect(isPostgresUnreachable(withCode(code))).toBe(true);
    expect(isClickHouseUnreachable(withCode(code))).toBe(true);
  });

  it("reads Postgres's connection and shutdown states as away, and a wrong statement as not", () => {
    for (const code of ['08006', '08001', '57P01', '57P03', '57014'])
      expect(isPostgresUnreachable(withCode(code))).toBe(true);
    for (const code of ['42P01', '23505', '22P02']) expect(isPostgresUnreachable(withCode(code))).toBe(false);
  });

  it('reads neither an error without a code nor a value that is no error as away', () => {
    expect(isClickHouseUnreachable(new Error('Syntax error'))).toBe(false);
    expect(isClickHouseUnreachable({ code: 'ECONNREFUSED' })).toBe(false);
    expect(isPostgresUnreachable('ECONNREFUSED')).toBe(false);
  });
});
