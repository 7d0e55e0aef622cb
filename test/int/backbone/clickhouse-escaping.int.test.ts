import { afterAll, expect, it } from 'vitest';
import { createClickHouse, sql } from '../../../platform/clickhouse.ts';

const clickhouse = createClickHouse();
afterAll(() => clickhouse.close());

// Deterministic pseudo-random strings (a seeded generator, so a failure can be replayed) drawn
// from the characters that break SQL literals, plus ordinary and multi-byte text.
function generator(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}
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

it('round-trips adversarial strings through the one escaping helper, against the real server', async () => {
  const next = generator(20261122);
  const samples = Array.from({ length: 300 }, () => randomString(next));
  samples.push('', "'; DROP TABLE requests; --", '\\', "\\'", 'x'.repeat(10_000));
  for (let start = 0; start < samples.length; start += 50) {
    const chunk = samples.slice(start, start + 50);
    const query = `SELECT ${chunk.map((text, index) => `${sql`${text}`.text} AS v${index}`).join(', ')}`;
    const result = await clickhouse.query({ query, format: 'JSONEachRow' });
    const [row] = await result.json<Record<string, string>>();
    expect(chunk.map((_, index) => row?.[`v${index}`])).toEqual(chunk);
  }
});

it('escapes arrays and numbers, and refuses what is not a finite number', async () => {
  const result = await clickhouse.query({
    query: sql`SELECT ${["a'b", 'c\\d']} AS texts, ${42} AS answer, ${12345678901234567890n} AS big`.text,
    format: 'JSONEachRow',
  });
  expect(await result.json()).toEqual([{ texts: ["a'b", 'c\\d'], answer: 42, big: '12345678901234567890' }]);
  expect(() => sql`SELECT ${Number.NaN}`).toThrow(/finite/);
});
