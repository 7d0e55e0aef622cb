import type { ClickHouseClient } from '../platform/clickhouse.ts';

// ClickHouse's background merges are the part of a run's CPU that moves most from one round to
// the next: they rewrite what earlier runs left as well as what this one inserted, so a round can
// spend 8 or 16 ms of ClickHouse CPU per 1,000 spans with the same code. The server's own counters
// (system.events, cumulative since it started) say how much a run merged against what it
// inserted, which tells a round that merged more from one that ran slower.

export interface MergeCounters {
  /** Rows of INSERT statements: the spans sent, not the views' rows made from them. */
  insertedRows: number;
  /** Rows read by merges, of every table (the views' too). */
  mergedRows: number;
}

const counterEvents = { InsertedRows: 'insertedRows', MergedRows: 'mergedRows' } as const;

export async function readMergeCounters(clickhouse: ClickHouseClient): Promise<MergeCounters> {
  const result = await clickhouse.query({
    query: `SELECT event, value FROM system.events WHERE event IN ('InsertedRows', 'MergedRows')`,
    format: 'JSONEachRow',
  });
  const counters: MergeCounters = { insertedRows: 0, mergedRows: 0 };
  for (const { event, value } of await result.json<{ event: keyof typeof counterEvents; value: string }>())
    counters[counterEvents[event]] = Number(value);
  return counters;
}

export function mergesBetween(before: MergeCounters, after: MergeCounters): MergeCounters {
  return {
    insertedRows: after.insertedRows - before.insertedRows,
    mergedRows: after.mergedRows - before.mergedRows,
  };
}

export function addMerges(runs: MergeCounters[]): MergeCounters {
  return {
    insertedRows: runs.reduce((sum, run) => sum + run.insertedRows, 0),
    mergedRows: runs.reduce((sum, run) => sum + run.mergedRows, 0),
  };
}

/** "ClickHouse was sent 496,128 rows and merged 2,840,612 (5.7 per row sent, …)". */
export function mergesLine({ insertedRows, mergedRows }: MergeCounters): string {
  const count = (n: number) => n.toLocaleString('en-US');
  const perRow = insertedRows > 0 ? ` (${(mergedRows / insertedRows).toFixed(1)} per row sent)` : '';
  return `ClickHouse was sent ${count(insertedRows)} rows to insert and merged ${count(mergedRows)} of all its tables${perRow}`;
}
