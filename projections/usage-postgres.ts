import type { Projection } from '../consumers/runtime.ts';
import { utcDay } from '../domain/inference/pricing.ts';
import type { UsageRecorded } from '../domain/usage/events.ts';
import { identifier } from '../platform/clickhouse.ts';
import type { PgPool } from '../platform/postgres.ts';
import { usageFromWire } from '../schemas/events/usage-mapping.ts';
import { projectOnce } from './postgres-offsets.ts';

export const usagePostgresGroupId = 'orrery-usage-postgres';

// Usage events → Postgres `usage_daily`: tokens per org, model and UTC day (spec 000, Billing
// rules 2), what the posting job prices. The additions are not idempotent by themselves, so
// `projectOnce` applies each message once: the offsets move in the same transaction.
// `groupId` and `rollupTable` are a test seam: a redelivery test runs a group of its own (its
// offsets are keyed by it) counting into a scratch copy of the table, so it adds nothing to the
// platform's rollups.
export function usagePostgresProjection(
  pool: PgPool,
  options: { groupId?: string; rollupTable?: string } = {},
): Projection<UsageRecorded> {
  const groupId = options.groupId ?? usagePostgresGroupId;
  const table = identifier(options.rollupTable ?? 'usage_daily').text;
  const upsert = `INSERT INTO ${table} AS u (org_id, model, day, requests, input_tokens, output_tokens, fallbacks)
    VALUES ($1, $2, $3, 1, $4, $5, $6)
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
        ]),
      ),
  };
}
