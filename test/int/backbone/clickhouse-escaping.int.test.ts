import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClickHouseClient, createClickHouse, sql } from '../../../platform/clickhouse.ts';
import { insertRows } from '../../../platform/clickhouse-insert.ts';
import { type ModernClickHouse, startModernClickHouse } from '../../harness/modern-clickhouse.ts';
import { seededRandom } from '../../harness/seeded-random.ts';

// The one escaping helper, against the local 18.16 and a current ClickHouse (chDB, 26.x): every
// value of every query goes through it, so both must read back exactly what was escaped.
const engineNames = ['ClickHouse 18.16', 'a current ClickHouse (chDB)'] as const;
const engines = {} as Record<(typeof engineNames)[number], ClickHouseClient>;
let modern: ModernClickHouse;
beforeAll(async () => {
  modern = await startModernClickHouse();
  engines['ClickHouse 18.16'] = createClickHouse();
  engines['a current ClickHouse (chDB)'] = createClickHouse({ url: modern.url, database: 'default' });
});
afterAll(async () => {
  await Promise.all(Object.values(engines).map((clickhouse) => clickhouse.close()));
  await modern?.stop();
});

// Deterministic pseudo-random strings (seeded, so a failure can be replayed) drawn from the
// characters that break SQL literals, plus ordinary and multi-byte text.
const alphabet = [
  "'",
  '\\',
  '"',
  '`',
  '\n',
  '\r',
  '\t',
  '\0',
  '\b',
  '\f',
  ';',
  '--',
  '/*',
  '*/',
  '?',
  '{',
  '}',
  '$',
  'a',
  'Z',
  ' ',
  'é',
  '中',
  '😀',
  '\u2028',
  '\x7f',
  '\\N',
  "\\'",
  "''",
];

function randomString(next: () => number): string {
  const length = Math.floor(next() * 40);
  let text = '';
  for (let index = 0; index < length; index += 1) text += alphabet[Math.floor(next() * alphabet.length)];
  return text;
}

describe.each(engineNames)('on %s', (engine) => {
  it('round-trips adversarial strings through the one escaping helper', async () => {
    const next = seededRandom(20261122);
    const samples = Array.from({ length: 300 }, () => randomString(next));
    samples.push('', "'; DROP TABLE requests; --", '\\', "\\'", 'x'.repeat(10_000));
    for (let start = 0; start < samples.length; start += 50) {
      const chunk = samples.slice(start, start + 50);
      const query = `SELECT ${chunk.map((text, index) => `${sql`${text}`.text} AS v${index}`).join(', ')}`;
      const result = await engines[engine].query({ query, format: 'JSONEachRow' });
      const [row] = await result.json<Record<string, string>>();
      expect(chunk.map((_, index) => row?.[`v${index}`])).toEqual(chunk);
    }
  });

  it('escapes arrays and numbers, and refuses what is not a finite number', async () => {
    const result = await engines[engine].query({
      query: sql`SELECT ${["a'b", 'c\\d']} AS texts, ${42} AS answer, ${12345678901234567890n} AS big`.text,
      format: 'JSONEachRow',
    });
    expect(await result.json()).toEqual([
      { texts: ["a'b", 'c\\d'], answer: 42, big: '12345678901234567890' },
    ]);
    expect(() => sql`SELECT ${Number.NaN}`).toThrow(/finite/);
  });

  it('round-trips adversarial strings, NULL and 64-bit numbers through TabSeparated inserts', async () => {
    const clickhouse = engines[engine];
    const table = `insert_escaping_${Date.now()}`;
    await clickhouse.command({
      query: `CREATE TABLE ${table} (n UInt32, text Nullable(String), big UInt64) ENGINE = Memory`,
    });
    try {
      const next = seededRandom(20261124);
      const samples: (string | null)[] = Array.from({ length: 300 }, () => randomString(next));
      samples.push('', null, '\\N', '\\', '\t', 'x'.repeat(10_000));
      await insertRows(
        clickhouse,
        table,
        samples.map((text, n) => ({ n, text, big: '18446744073709551615' })),
      );
      const result = await clickhouse.query({
        query: `SELECT n, text, big FROM ${table} ORDER BY n`,
        format: 'JSONEachRow',
      });
      const rows = await result.json<{ n: number; text: string | null; big: string }>();
      expect(rows.map((row) => row.text)).toEqual(samples);
      expect(rows.every((row) => row.big === '18446744073709551615')).toBe(true);
    } finally {
      await clickhouse.command({ query: `DROP TABLE ${table}` });
    }
  });
});
