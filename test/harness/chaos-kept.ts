import { expect } from 'vitest';
import { type ClickHouseClient, sql } from '../../platform/clickhouse.ts';
import type { PgPool } from '../../platform/postgres.ts';
import type { ChaosLoad } from './chaos-load.ts';
import { eventually } from './eventually.ts';

// What a load that met kills must find kept (test/int/backbone/chaos.int.test.ts, test/int/fleet/):
// every acknowledged span stored exactly once (from one message) and counted once in the ledger,
// nothing stored that was not sent, every answered title billed once in the daily rollup and
// logged once in the request log.

export async function expectKeptExactlyOnce(deps: {
  load: ChaosLoad;
  clickhouse: ClickHouseClient;
  pool: PgPool;
  orgId: string;
  /** What the scripted model answers as a title's input tokens. */
  inputTokens: number;
  log: (line: string) => void;
}): Promise<void> {
  const { load, clickhouse, pool, orgId, log } = deps;
  const acknowledged = new Set(load.acknowledgedSpans);
  const sent = new Set(load.sentSpans);
  let lastCount = -1;
  const stored = await eventually(
    async () => {
      const found = await (
        await clickhouse.query({
          query:
            sql`SELECT concat(lower(hex(trace_id)), ':', lower(hex(span_id))) AS key, count() AS copies FROM spans FINAL
                     WHERE org_id = ${orgId} GROUP BY key`.text,
          format: 'JSONEachRow',
        })
      ).json<{ key: string; copies: string }>();
      if (found.length !== lastCount) {
        lastCount = found.length;
        log(`${lastCount} of ${acknowledged.size} acknowledged spans stored`);
      }
      return found.length >= acknowledged.size ? found : undefined;
    },
    120_000,
    'every acknowledged span in the read model',
  );
  expect(stored.filter((row) => Number(row.copies) !== 1)).toEqual([]);
  const storedKeys = new Set(stored.map((row) => row.key));
  expect([...acknowledged].filter((key) => !storedKeys.has(key))).toEqual([]);
  // Anything more was sent and refused (its outcome unknown to the client), never invented.
  expect([...storedKeys].filter((key) => !sent.has(key))).toEqual([]);
  // Stored once, not collapsed: every row of a span came in one message (a batch delivered again
  // writes the same message's rows again), so no request answered 503 had its spans stored beside
  // those of the request sent again (issue 49, item 1).
  const twice = await (
    await clickhouse.query({
      query: sql`SELECT concat(lower(hex(trace_id)), ':', lower(hex(span_id))) AS key,
                        uniqExact(received_offset) AS messages
                   FROM spans WHERE org_id = ${orgId} GROUP BY key HAVING messages > 1`.text,
      format: 'JSONEachRow',
    })
  ).json<{ key: string; messages: string }>();
  expect(twice).toEqual([]);
  // Counted once: the ledger holds, and the org's month counts, each stored span once.
  const { rows: ledger } = await pool.query<{ traces: number; month: number }>(
    `SELECT (SELECT coalesce(sum(cardinality(span_ids)), 0)::int FROM ingest_traces WHERE org_id = $1) AS traces,
            (SELECT coalesce(sum(spans), 0)::int FROM ingest_monthly WHERE org_id = $1) AS month`,
    [orgId],
  );
  expect(ledger[0]).toEqual({ traces: storedKeys.size, month: storedKeys.size });

  const answered = load.answeredTitles;
  expect(new Set(answered).size).toBe(answered.length);
  const billed = await eventually(
    async () => {
      const { rows } = await pool.query<{ requests: number; input_tokens: number }>(
        'SELECT coalesce(sum(requests), 0)::int AS requests, coalesce(sum(input_tokens), 0)::int AS input_tokens FROM usage_daily WHERE org_id = $1',
        [orgId],
      );
      return rows[0]!.requests >= answered.length ? rows[0] : undefined;
    },
    120_000,
    'every answered title billed',
  );
  expect(billed).toEqual({ requests: answered.length, input_tokens: answered.length * deps.inputTokens });
  // The request log is another consumer group's (ClickHouse): it may still be behind the
  // Postgres rollup just read, so it is waited for in its own right.
  const logged = await eventually(
    async () => {
      const rows = await (
        await clickhouse.query({
          query: sql`SELECT request_id FROM requests FINAL WHERE org_id = ${orgId}`.text,
          format: 'JSONEachRow',
        })
      ).json<{ request_id: string }>();
      return rows.length >= answered.length ? rows : undefined;
    },
    120_000,
    'every answered title in the request log',
  );
  expect(logged.map((row) => row.request_id).sort()).toEqual([...answered].sort());
}
