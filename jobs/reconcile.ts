import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { orgModelDayKey, utcDay } from '../domain/billing/day.ts';
import { compareDays, type Difference, describeDifference } from '../domain/billing/reconcile.ts';
import { type ClickHouseClient, createClickHouse } from '../platform/clickhouse.ts';
import { poll } from '../platform/poll.ts';
import { createPgPool, inTransaction, type PgPool } from '../platform/postgres.ts';
import { createEventProducer, type EventProducer } from '../producers/producer.ts';
import { usagePostgresGroupId } from '../projections/usage-postgres.ts';
import { type BillingFilter, readCharged, readRollups, writeRollup } from '../stores/billing.ts';
import { type PostChargesResult, postCharges } from './post-charges.ts';
import { caughtUpTo, quiet, readLogTotals, readUsageOffsets, type UsageOffsets } from './usage-log.ts';

// Reconciliation: each org/model/UTC day recomputed from the raw request log in ClickHouse is
// compared with the Postgres rollup and the charges posted (domain/billing/reconcile.ts). Usage:
//   npx tsx jobs/reconcile.ts [--org <id>]... [--from <day>] [--to <day>] [--json] [--repair]
// Exit 0: no differences; 1: differences (after --repair: some remain); 2: nothing could be
// compared (the projections are behind, or the usage stream moved during a repair).

export interface ReconcileDeps {
  pool: PgPool;
  clickhouse: ClickHouseClient;
  /** Needed by --repair, which posts the charges owed. */
  producer?: EventProducer;
  /** How long to wait for both usage projections to reach the topic's end. */
  catchUpTimeoutMs?: number;
  now?: () => Date;
}

/** The comparison could not be made soundly; exit 2 and rerun later. */
export class NotSettled extends Error {}

/** Waits until both usage projections hold every event published before the call. */
async function untilCaughtUp(deps: ReconcileDeps): Promise<void> {
  const { end } = await readUsageOffsets(deps.pool);
  let offsets = await readUsageOffsets(deps.pool);
  const caughtUp = await poll(
    async () => {
      offsets = await readUsageOffsets(deps.pool);
      return caughtUpTo(offsets, end);
    },
    { timeoutMs: deps.catchUpTimeoutMs ?? 30_000, intervalMs: 200 },
  );
  if (!caughtUp)
    throw new NotSettled(
      `The usage projections are behind the usage topic (${behind(offsets, end)}); are the consumers running? Rerun when they have caught up.`,
    );
}

/** Where each projection stands against the end it must reach: `postgres p0 12/15`, … */
function behind(offsets: UsageOffsets, end: Map<number, bigint>): string {
  const stores = { postgres: offsets.postgres, clickhouse: offsets.clickhouse };
  return Object.entries(stores)
    .flatMap(([store, at]) =>
      [...end]
        .filter(([partition, high]) => (at.get(partition) ?? 0n) < high)
        .map(([partition, high]) => `${store} p${partition} ${at.get(partition) ?? 0n}/${high}`),
    )
    .join(', ');
}

async function compareOnce(deps: ReconcileDeps, filter: BillingFilter): Promise<Difference[]> {
  const [log, rollups, charged] = await Promise.all([
    readLogTotals(deps.clickhouse, filter),
    readRollups(deps.pool, filter),
    readCharged(deps.pool, filter),
  ]);
  return compareDays(log, rollups, charged, utcDay((deps.now?.() ?? new Date()).getTime()));
}

const identity = (d: Difference) => JSON.stringify([d.kind, orgModelDayKey(d)]);

/**
 * The differences that hold once both projections have caught up, read twice: a difference
 * that was only an event still in flight between the two stores is gone the second time.
 */
export async function reconcile(deps: ReconcileDeps, filter: BillingFilter = {}): Promise<Difference[]> {
  await untilCaughtUp(deps);
  const first = await compareOnce(deps, filter);
  if (first.length === 0) return first;
  await untilCaughtUp(deps);
  const seen = new Set(first.map(identity));
  return (await compareOnce(deps, filter)).filter((d) => seen.has(identity(d)));
}

export interface RepairResult {
  rollupsRewritten: number;
  charges: PostChargesResult;
}

/**
 * The documented repair (README, "Reconciliation"): each differing rollup is rebuilt from the
 * request log, then the posting job posts what the rebuilt days owe. The rollups are rewritten
 * only while the usage stream is quiet, with the Postgres projection held (its offset rows are
 * locked), so no event is counted by both the rebuilt row and the projection. Overcharges are
 * not refunded here: grant the difference as credit.
 */
export async function repair(deps: ReconcileDeps, differences: Difference[]): Promise<RepairResult> {
  if (!deps.producer) throw new Error('repair needs a producer to post charges');
  const rollups = differences.filter((d) => d.kind === 'rollup');
  if (rollups.length > 0) await rewriteRollups(deps, rollups);
  const orgIds = [...new Set(differences.filter((d) => d.kind !== 'overcharged').map((d) => d.orgId))];
  const charges =
    orgIds.length > 0
      ? await postCharges({ pool: deps.pool, producer: deps.producer }, { orgIds })
      : { posted: [], skipped: [] };
  return { rollupsRewritten: rollups.length, charges };
}

async function rewriteRollups(deps: ReconcileDeps, rollups: Difference[]): Promise<void> {
  await inTransaction(deps.pool, async (client) => {
    await client.query('SELECT 1 FROM projection_offsets WHERE group_id = $1 FOR UPDATE', [
      usagePostgresGroupId,
    ]);
    const before = await readUsageOffsets(deps.pool);
    if (!quiet(before))
      throw new NotSettled('The usage stream is moving; rerun the repair when it is quiet.');
    const log = await readLogTotals(deps.clickhouse, { orgIds: [...new Set(rollups.map((d) => d.orgId))] });
    const after = await readUsageOffsets(deps.pool);
    if ([...after.end].some(([partition, high]) => before.end.get(partition) !== high))
      throw new NotSettled('The usage stream moved during the repair; nothing was changed. Rerun it.');
    const logged = new Map(log.map((row) => [orgModelDayKey(row), row]));
    for (const difference of rollups) {
      const row = logged.get(orgModelDayKey(difference));
      const { orgId, model, day } = difference;
      await writeRollup(
        client,
        row ?? { orgId, model, day, requests: 0, inputTokens: 0, outputTokens: 0, fallbacks: 0 },
        row !== undefined,
      );
    }
  });
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      org: { type: 'string', multiple: true },
      from: { type: 'string' },
      to: { type: 'string' },
      json: { type: 'boolean', default: false },
      repair: { type: 'boolean', default: false },
    },
  });
  const filter: BillingFilter = { orgIds: values.org, from: values.from, to: values.to };
  const pool = createPgPool(3);
  const clickhouse = createClickHouse();
  const producer = values.repair ? await createEventProducer('orrery-reconcile') : undefined;
  const deps: ReconcileDeps = { pool, clickhouse, producer };
  const print = (line: string) => process.stdout.write(`${line}\n`);
  try {
    const differences = await reconcile(deps, filter);
    if (!values.repair) {
      if (values.json) print(JSON.stringify({ differences }));
      else for (const d of differences) print(describeDifference(d));
      return differences.length === 0 ? 0 : 1;
    }
    const repaired = differences.length > 0 ? await repair(deps, differences) : undefined;
    const remaining = repaired ? await reconcile(deps, filter) : [];
    if (values.json) print(JSON.stringify({ differences, repaired, remaining }));
    else {
      for (const d of differences) print(describeDifference(d));
      if (repaired)
        print(
          `repaired: ${repaired.rollupsRewritten} rollups rebuilt from the log, ${repaired.charges.posted.length} charges posted`,
        );
      for (const d of remaining) print(`remaining: ${describeDifference(d)}`);
    }
    return remaining.length === 0 ? 0 : 1;
  } catch (error) {
    if (!(error instanceof NotSettled)) throw error;
    process.stderr.write(`reconcile: ${error.message}\n`);
    return 2;
  } finally {
    await producer?.disconnect();
    await Promise.all([pool.end(), clickhouse.close()]);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`reconcile: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
