import { readdirSync, readFileSync } from 'node:fs';
import { runner } from 'node-pg-migrate';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import { sql } from '../platform/clickhouse.ts';
import type { Config } from '../platform/config.ts';

const postgresDir = new URL('./migrations/postgres/', import.meta.url);
const clickhouseDir = new URL('./migrations/clickhouse/', import.meta.url);

/** Versioned SQL files (infra/migrations/postgres), applied in order under an advisory lock. */
export async function migratePostgres(config: Config, log: (line: string) => void): Promise<void> {
  await runner({
    databaseUrl: config.postgres.url,
    dir: postgresDir.pathname,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    checkOrder: true,
    log: (message: string) => {
      if (!/^No migrations to run|^Migrations complete/.test(message))
        log(`postgres migration: ${message.trim()}`);
    },
  });
}

/**
 * ClickHouse has no migration tool that runs on 18.16 and current releases alike, so this is ours:
 * files `NNNN_name.sql` (statements separated by `;` at a line's end) applied in order, each
 * recorded in `schema_migrations` once it succeeded. Statements use IF NOT EXISTS, so a run cut
 * short can be repeated; 18.16 has no `ADD COLUMN IF NOT EXISTS`, so an `ADD COLUMN` refused
 * because the column is there already (a run cut short after it) counts as done. A file that
 * cannot say so statement by statement (a table copied and swapped in, 0008) starts with
 * `-- done when: <query>`: if the query's first value is not 0, the file's work is there already
 * and it is recorded without running.
 */
export async function migrateClickHouse(
  clickhouse: ClickHouseClient,
  log: (line: string) => void,
): Promise<void> {
  await clickhouse.command({
    query:
      'CREATE TABLE IF NOT EXISTS schema_migrations (version String, applied_at DateTime) ENGINE = MergeTree() ORDER BY version',
  });
  const applied = await clickhouse.query({
    query: 'SELECT version FROM schema_migrations',
    format: 'JSONEachRow',
  });
  const done = new Set((await applied.json<{ version: string }>()).map((row) => row.version));
  const files = readdirSync(clickhouseDir)
    .filter((file) => /^\d{4}_.+\.sql$/.test(file))
    .sort();
  for (const file of files) {
    const version = file.replace(/\.sql$/, '');
    if (done.has(version)) continue;
    const text = readFileSync(new URL(file, clickhouseDir), 'utf8');
    const doneWhen = /^-- done when: (.+)$/m.exec(text)?.[1];
    if (doneWhen !== undefined && (await alreadyDone(clickhouse, doneWhen))) {
      await record(clickhouse, version);
      log(`clickhouse migration: ${version} was done already`);
      continue;
    }
    const statements = text
      .split(/;\s*$/m)
      .map((statement) => statement.replace(/^\s*--.*$/gm, '').trim())
      .filter(Boolean);
    for (const statement of statements) await applyStatement(clickhouse, statement);
    await record(clickhouse, version);
    log(`clickhouse migration: applied ${version}`);
  }
}

function record(clickhouse: ClickHouseClient, version: string): Promise<unknown> {
  return clickhouse.command({
    query: sql`INSERT INTO schema_migrations (version, applied_at) VALUES (${version}, now())`.text,
  });
}

/** Whether a `done when` query's first value (of its first row) is anything but 0. */
async function alreadyDone(clickhouse: ClickHouseClient, query: string): Promise<boolean> {
  const result = await clickhouse.query({ query, format: 'JSONEachRow' });
  const [row] = await result.json<Record<string, unknown>>();
  return row !== undefined && Number(Object.values(row)[0]) !== 0;
}

const addColumn = /^ALTER TABLE \S+ ADD COLUMN /i;

async function applyStatement(clickhouse: ClickHouseClient, statement: string): Promise<void> {
  try {
    await clickhouse.command({ query: statement });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (addColumn.test(statement) && /column with this name already exists/i.test(message)) return;
    throw error;
  }
}
