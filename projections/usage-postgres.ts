import { utcDay } from '../domain/billing/day.ts';
import type { UsageRecorded } from '../domain/usage/events.ts';
import { identifier } from '../platform/clickhouse.ts';
import type { PgPool } from '../platform/postgres.ts';
import { usageFromWire } from '../schemas/events/usage-mapping.ts';
import { projectOnce } from './postgres-offsets.ts';
import type { Projection } from './projection.ts';

export const usagePostgresGroupId = 'orrery-usage-postgres';

// Usage events → Postgres `usage_daily`: tokens per org, model and UTC day (spec 000, Billing
// rules 2), what the posting job prices. The additions are not idempotent by themselves, so each
// is made once twice over: `projectOnce` applies each message once (the offsets move in the same
// transaction), and a request id already in `usage_counted` adds nothing (the same request
// published twice: domain/usage/identity.ts).
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
  const upsert = `WITH first AS (
      INSERT INTO ${counted} (request_id) VALUES ($7) ON CONFLICT DO NOTHING RETURNING 1
    )
    INSERT INTO ${table} AS u (org_id, model, day, requests, input_tokens, output_tokens, fallbacks)
    SELECT $1, $2, $3, 1, $4, $5, $6 FROM first
    ON CONFLICT (org_id, model, day) DO UPDATE SET
      requests = u.requests + 1,
      input_tokens = u.input_tokens + EXCLUDED.input_tokens,
      output_tokens = u.output_tokens + EXCLUDED.output_tokens,
      fallbacks = u.fallbacks + EXCLUDED.fallbacks`;
  return {
    groupId,
    stream: 'usage',
    maxWaitMs: 250,
    fromWire: usageFromWire,
    project: (batch, consumingGroup) =>
      projectOnce(pool, consumingGroup, batch, (client, event) =>
        client.query(upsert, [
          event.orgId,
          event.model,
          utcDay(event.occurredAt.getTime()),
          event.inputTokens,
          event.outputTokens,
          event.fallback ? 1 : 0,
          event.requestId,
        ]),
      ),
  };
}
