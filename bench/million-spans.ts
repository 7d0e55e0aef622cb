import { gzipSync } from 'node:zlib';
import { createApiKey, createOrg, enableTracing } from '../api/admin/commands.ts';
import type { OtlpSpan } from '../domain/tracing/otlp.ts';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import { joinSql, sql } from '../platform/clickhouse.ts';
import type { PgPool } from '../platform/postgres.ts';
import type { EventProducer } from '../producers/producer.ts';
import { request, responseType, toProtobuf } from '../test/harness/otlp-fixtures.ts';
import { benchResource, supportSpans } from './analytics-traces.ts';

// The reads' benches at the monthly limit (bench/analytics.ts, bench/sessions-users.ts): one org
// holding 1,000,000 spans (001, Limits) among others, loaded through the OTLP endpoint with the
// support-agent traces of analytics-traces.ts. The orgs are found by name on the next run, of
// either bench, which loads only what is missing.

/** The spec's monthly limit per org (001, Limits); the other orgs stay under it. */
export const monthlyLimit = 1_000_000;
const batchSize = 512;

export interface BenchOrg {
  orgId: string;
  name: string;
  spans: number;
  key: string;
}

export interface Stores {
  pool: PgPool;
  producer: EventProducer;
  clickhouse: ClickHouseClient;
}

export interface Sizes {
  targetSpans: number;
  otherSpans: number;
  /** A new set of orgs rather than the latest one of these sizes. */
  reload: boolean;
}

export const otherOrgCount = (otherSpans: number) =>
  Math.max(10, Math.ceil(otherSpans / (monthlyLimit * 0.95)));

/** The orgs of this size's latest set (or a new set), each with a fresh key; the target first. */
export async function benchOrgs(stores: Stores, sizes: Sizes): Promise<BenchOrg[]> {
  const { pool, producer } = stores;
  const admin = { pool, producer };
  const { targetSpans, otherSpans } = sizes;
  const otherOrgs = otherOrgCount(otherSpans);
  const prefix = `analytics-bench ${targetSpans}+${otherSpans}`;
  const existing = await pool.query<{ org_id: string; name: string }>(
    'SELECT org_id, name FROM orgs WHERE name LIKE $1 ORDER BY name',
    [`${prefix} set %`],
  );
  const sets = existing.rows.map((row) => Number(/ set (\d+) /.exec(row.name)?.[1] ?? 0));
  const latest = Math.max(0, ...sets);
  const set = sizes.reload || latest === 0 ? latest + 1 : latest;
  const wanted = [
    { name: `${prefix} set ${set} target`, spans: targetSpans },
    ...Array.from({ length: otherOrgs }, (_, index) => ({
      name: `${prefix} set ${set} other ${String(index + 1).padStart(2, '0')}`,
      spans: Math.floor(otherSpans / otherOrgs) + (index < otherSpans % otherOrgs ? 1 : 0),
    })),
  ];
  const orgs: BenchOrg[] = [];
  for (const { name, spans } of wanted) {
    let orgId = existing.rows.find((row) => row.name === name)?.org_id;
    if (!orgId) {
      orgId = (await createOrg(admin, name)).orgId;
      await enableTracing(admin, orgId);
    }
    const { key } = await createApiKey(admin, orgId, ['traces:write'], 'analytics bench');
    orgs.push({ orgId, name, spans, key });
  }
  // The API follows the org stream: give it a moment to know the new keys.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return orgs;
}

export async function storedSpans(
  clickhouse: ClickHouseClient,
  orgIds: string[],
): Promise<Map<string, number>> {
  const ids = joinSql(
    orgIds.map((orgId) => sql`${orgId}`),
    ', ',
  );
  const result = await clickhouse.query({
    query: sql`SELECT org_id, count() AS n FROM spans WHERE org_id IN (${ids}) GROUP BY org_id`.text,
    format: 'JSONEachRow',
  });
  const rows = await result.json<{ org_id: string; n: string }>();
  return new Map(rows.map((row) => [row.org_id, Number(row.n)]));
}

export interface Load {
  accepted: number;
  refused: number;
  requests: number;
  failed: number;
  seconds: number;
}

/** Sends each org's missing spans, batches of 512 (protobuf, gzip), the orgs taking turns. */
export async function load(
  baseUrl: string,
  orgs: BenchOrg[],
  missing: Map<string, number>,
  concurrency: number,
): Promise<Load> {
  const now = Date.now();
  const queues = orgs
    .filter((org) => (missing.get(org.orgId) ?? 0) > 0)
    .map((org) => ({ org, spans: supportSpans(missing.get(org.orgId)!, now) }));
  const totals = { accepted: 0, refused: 0, requests: 0, failed: 0 };
  const total = [...missing.values()].reduce((sum, n) => sum + Math.max(0, n), 0);
  let turn = 0;
  function nextBatch(): { org: BenchOrg; body: Buffer; count: number } | undefined {
    while (queues.length > 0) {
      const index = turn++ % queues.length;
      const queue = queues[index]!;
      const spans: OtlpSpan[] = [];
      // next() by hand: leaving a for…of would close the generator.
      for (let next = queue.spans.next(); !next.done; next = queue.spans.next()) {
        spans.push(next.value);
        if (spans.length === batchSize) break;
      }
      if (spans.length < batchSize) queues.splice(index, 1);
      if (spans.length === 0) continue;
      const body = request(spans);
      body.resourceSpans[0]!.resource.attributes = benchResource;
      return { org: queue.org, body: gzipSync(toProtobuf(body)), count: spans.length };
    }
    return undefined;
  }
  const started = performance.now();
  let lastReport = started;
  async function sender() {
    for (let batch = nextBatch(); batch; batch = nextBatch()) {
      for (let attempt = 0; ; attempt += 1) {
        const response = await fetch(`${baseUrl}/api/otlp/v1/traces`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-protobuf',
            'content-encoding': 'gzip',
            authorization: `Bearer ${batch.org.key}`,
          },
          body: batch.body,
        });
        const bytes = Buffer.from(await response.arrayBuffer());
        totals.requests += 1;
        if (response.status === 503 && attempt < 5) {
          await new Promise((resolve) => setTimeout(resolve, 1000));
          continue;
        }
        if (response.status !== 200) {
          totals.failed += 1;
          break;
        }
        const answer = responseType.toObject(responseType.decode(bytes), { longs: Number }) as {
          partialSuccess?: { rejectedSpans?: number };
        };
        const refused = answer.partialSuccess?.rejectedSpans ?? 0;
        totals.refused += refused;
        totals.accepted += batch.count - refused;
        break;
      }
      if (performance.now() - lastReport > 30_000) {
        lastReport = performance.now();
        const seconds = (lastReport - started) / 1000;
        process.stderr.write(
          `loading: ${totals.accepted + totals.refused} of ${total} spans sent in ${seconds.toFixed(0)} s (${((totals.accepted + totals.refused) / seconds).toFixed(0)}/s)\n`,
        );
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, sender));
  return { ...totals, seconds: (performance.now() - started) / 1000 };
}

/** Waits until ClickHouse holds `expected` spans of each org; seconds waited. */
export async function untilStored(
  clickhouse: ClickHouseClient,
  orgs: BenchOrg[],
  expected: Map<string, number>,
  timeoutMs: number,
): Promise<number> {
  const started = performance.now();
  for (;;) {
    const stored = await storedSpans(
      clickhouse,
      orgs.map((org) => org.orgId),
    );
    if (orgs.every((org) => (stored.get(org.orgId) ?? 0) >= (expected.get(org.orgId) ?? 0)))
      return (performance.now() - started) / 1000;
    if (performance.now() - started > timeoutMs) throw new Error('ClickHouse did not get every span in time');
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

/**
 * The orgs at their sizes: found (or made), their missing spans loaded and in ClickHouse. Says
 * what it did in `say`; true when it loaded anything.
 */
export async function loadedOrgs(
  baseUrl: string,
  stores: Stores,
  sizes: Sizes,
  concurrency: number,
  say: (line: string) => void,
): Promise<{ orgs: BenchOrg[]; loaded: boolean }> {
  const orgs = await benchOrgs(stores, sizes);
  const expected = new Map(orgs.map((org) => [org.orgId, org.spans]));
  const stored = await storedSpans(
    stores.clickhouse,
    orgs.map((org) => org.orgId),
  );
  const missing = new Map(orgs.map((org) => [org.orgId, org.spans - (stored.get(org.orgId) ?? 0)]));
  const toLoad = [...missing.values()].reduce((sum, n) => sum + Math.max(0, n), 0);
  if (toLoad === 0) {
    say('  already loaded (same org names): nothing sent');
    return { orgs, loaded: false };
  }
  const loaded = await load(baseUrl, orgs, missing, concurrency);
  say(
    `  loaded through POST /api/otlp/v1/traces: ${loaded.accepted} spans accepted, ${loaded.refused} refused, ${loaded.failed} of ${loaded.requests} requests failed, in ${loaded.seconds.toFixed(0)} s (${(loaded.accepted / loaded.seconds).toFixed(0)} spans/s)`,
  );
  const waited = await untilStored(stores.clickhouse, orgs, expected, 60 * 60_000);
  say(`  in ClickHouse ${waited.toFixed(0)} s after the last answer`);
  return { orgs, loaded: true };
}
