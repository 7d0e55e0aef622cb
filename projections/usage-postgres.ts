import { utcDay } from '../domain/billing/day.ts';
import type { UsageRecorded } from '../domain/usage/events.ts';
import { identifier } from '../platform/clickhouse.ts';
import type { PgPool } from '../platform/postgres.ts';
import { usageFromWire } from '../schemas/events/usage-mapping.ts';
import { projectBatchOnce } from './postgres-offsets.ts';
import { type Projection, trickleFetchMinBytes } from './projection.ts';

export const usagePostgresGroupId = 'orrery-usage-postgres';

// Usage events → Postgres `usage_daily`: tokens per org, model and UTC day (spec 000, Billing
// rules 2), and a run's seconds per org, meter and UTC day (issue 16), what the posting job prices. The additions are not idempotent by themselves, so each
// is made once twice over: `projectBatchOnce` applies each message once (the offsets move in the
// same transaction), and a request id already in `usage_counted` adds nothing (the same request
// published twice: domain/usage/identity.ts).
// A batch is one statement, whatever its size: its request ids go into `usage_counted`, and only
// the ids that were new there are added up per org, model and day, one upsert per group (one
// upsert per event cost Postgres 210 to 340 µs of CPU an event, a tenth to a sixth of a core at
// 500 titles a second; issue 10).
// `groupId` and `tables` are a test seam: a redelivery test runs a group of its own (its offsets
// are keyed by it) counting into scratch copies of both tables, so it adds nothing to the
// platform's rollups.
export function usagePostgresProjection(
  pool: PgPool,
  options: { groupId?: string; tables?: { rollup: string; counted: string } } = {},
): Projection<UsageRecorded> {
  const groupId = options.groupId ?? usagePostgresGroupId;
  const table = identifier(options.tables?.rollup ?? 'usage_daily').text;
  const counted = identifier(options.tables?.counted ?? 'usage_counted').text;
  // The groups are upserted in key order, so two batches lock the rows they share in one order.
  const upsert = `WITH batch AS (
      SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::date[], $5::bigint[], $6::bigint[], $7::int[],
                           $8::bigint[])
        AS e (request_id, org_id, model, day, input_tokens, output_tokens, fallback, seconds)
    ), first AS (
      INSERT INTO ${counted} (request_id) SELECT request_id FROM batch
      ON CONFLICT DO NOTHING RETURNING request_id
    )
    INSERT INTO ${table} AS u (org_id, model, day, requests, input_tokens, output_tokens, fallbacks, seconds)
    SELECT org_id, model, day, count(*), sum(input_tokens)::bigint, sum(output_tokens)::bigint, sum(fallback),
           sum(seconds)::bigint
      FROM batch JOIN first USING (request_id)
     GROUP BY org_id, model, day
     ORDER BY org_id, model, day
    ON CONFLICT (org_id, model, day) DO UPDATE SET
      requests = u.requests + EXCLUDED.requests,
      input_tokens = u.input_tokens + EXCLUDED.input_tokens,
      output_tokens = u.output_tokens + EXCLUDED.output_tokens,
      fallbacks = u.fallbacks + EXCLUDED.fallbacks,
      seconds = u.seconds + EXCLUDED.seconds`;
  return {
    groupId,
    stream: 'usage',
    fetchMinBytes: trickleFetchMinBytes,
    maxWaitMs: 250,
    // A transaction costs Postgres more than the events in it: at 500 titles a second a fetch
    // brings a handful of events, a hundred-odd transactions a second, 15 % of a core. Gathered,
    // the partitions' batches are one transaction at most a second (about 500 events), 1 %. The
    // rollup is read by the posting job every few minutes, reconciliation and people.
    gather: { maxMessages: 10_000, maxWaitMs: 250, minIntervalMs: 1000 },
    from: { wire: usageFromWire },
    project: (batch, consumingGroup) =>
      projectBatchOnce(pool, consumingGroup, batch, (client, events) => {
        const requests = firstOfEachRequest(events);
        return client.query(upsert, [
          requests.map((event) => event.requestId),
          requests.map((event) => event.orgId),
          requests.map((event) => event.model),
          requests.map((event) => utcDay(event.occurredAt.getTime())),
          requests.map((event) => event.inputTokens),
          requests.map((event) => event.outputTokens),
          requests.map((event) => (event.fallback ? 1 : 0)),
          requests.map((event) => event.seconds ?? 0),
        ]);
      }),
  };
}

/**
 * A request published twice can be delivered twice in one batch: it counts once, as its first
 * event. (Joined to the ids `usage_counted` took, a repeated id would be added once per copy.)
 */
function firstOfEachRequest(events: readonly UsageRecorded[]): UsageRecorded[] {
  const byRequest = new Map<string, UsageRecorded>();
  for (const event of events) if (!byRequest.has(event.requestId)) byRequest.set(event.requestId, event);
  return [...byRequest.values()];
}
