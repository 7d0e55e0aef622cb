import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateClickHouse } from '../../../infra/migrate.ts';
import { createDatabaseStatement } from '../../../infra/stack/clickhouse.ts';
import {
  type ClickHouseClient,
  createClickHouse,
  idBytes,
  identifier,
  sql,
} from '../../../platform/clickhouse.ts';

// The migrations that copy a table into one with binary ids and swap it in (0008 to 0010) must
// never swap again once done: run again after their record was lost (a run cut short between a
// swap and its record), a copy of a table that has binary ids already would be empty, and
// swapping it in would lose every span. Their `done when` finds the work there and records it.

const database = `migrations_${randomBytes(4).toString('hex')}`;
let admin: ClickHouseClient;
let clickhouse: ClickHouseClient;

beforeAll(async () => {
  admin = createClickHouse({ database: 'default' });
  await admin.command({ query: createDatabaseStatement(database) });
  clickhouse = createClickHouse({ database });
});

afterAll(async () => {
  await clickhouse?.close();
  await admin?.command({ query: `DROP DATABASE IF EXISTS ${identifier(database).text}` });
  await admin?.close();
});

const swapping = ['0008_spans_binary_ids', '0009_span_facts_binary_ids', '0010_trace_fragments_binary_ids'];

describe('the migrations to binary ids', () => {
  it('are found done, and swap nothing, when run again after their record was lost', async () => {
    await migrateClickHouse(clickhouse, () => undefined);
    const traceId = randomBytes(16).toString('hex');
    const spanId = randomBytes(8).toString('hex');
    await clickhouse.command({
      query: sql`INSERT INTO spans (org_id, trace_id, span_id, trace_first_received_at, name)
        VALUES ('org_kept', ${idBytes(traceId)}, ${idBytes(spanId)}, now(), 'kept')`.text,
    });
    // Every record but the swapping migrations' and the view's made again after them.
    const applied = await clickhouse.query({
      query: 'SELECT version FROM schema_migrations',
      format: 'JSONEachRow',
    });
    const kept = (await applied.json<{ version: string }>())
      .map((row) => row.version)
      .filter((version) => !swapping.includes(version) && version !== '0011_span_facts_view_binary_ids');
    await clickhouse.command({ query: 'TRUNCATE TABLE schema_migrations' });
    for (const version of kept)
      await clickhouse.command({
        query: sql`INSERT INTO schema_migrations (version, applied_at) VALUES (${version}, now())`.text,
      });

    const lines: string[] = [];
    await migrateClickHouse(clickhouse, (line) => lines.push(line));

    expect(lines).toEqual([
      ...swapping.map((version) => `clickhouse migration: ${version} was done already`),
      'clickhouse migration: applied 0011_span_facts_view_binary_ids',
    ]);
    const spans = await clickhouse.query({
      query: `SELECT lower(hex(trace_id)) AS trace_hex, lower(hex(span_id)) AS span_hex, name FROM spans`,
      format: 'JSONEachRow',
    });
    expect(await spans.json()).toEqual([{ trace_hex: traceId, span_hex: spanId, name: 'kept' }]);
  });
});
