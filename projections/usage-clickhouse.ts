import type { UsageRecorded } from '../domain/usage/events.ts';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import { insertRows } from '../platform/clickhouse-insert.ts';
import { usageFromWire } from '../schemas/events/usage-mapping.ts';
import { type Projection, trickleFetchMinBytes } from './projection.ts';

// Usage events → ClickHouse `requests` (the Endpoints > Requests list, which shows the title and
// preview requests; a run's metered stretches are kept beside them for reconciliation). One insert per batch;
// ReplacingMergeTree collapses a redelivered row on (org_id, occurred_at, request_id).
export function usageClickHouseProjection(clickhouse: ClickHouseClient): Projection<UsageRecorded> {
  return {
    groupId: 'orrery-usage-clickhouse',
    stream: 'usage',
    fetchMinBytes: trickleFetchMinBytes,
    maxWaitMs: 1000,
    // Few large inserts: a quarter of a second lets every partition's batch join one insert, and
    // at most one insert a second (the list is read by people, not by the next request).
    gather: { maxMessages: 20_000, maxWaitMs: 250, minIntervalMs: 1000 },
    from: { wire: usageFromWire },
    async project(batch) {
      await insertRows(
        clickhouse,
        'requests',
        batch.map(({ event }) => ({
          org_id: event.orgId,
          occurred_at: Math.floor(event.occurredAt.getTime() / 1000),
          request_id: event.requestId,
          event_id: event.eventId,
          occurred_at_ms: event.occurredAt.getTime(),
          key_id: event.keyId,
          person_id: event.personId ?? '',
          model: event.model,
          endpoint: event.endpoint,
          input_tokens: event.inputTokens,
          output_tokens: event.outputTokens,
          fallback: event.fallback ? 1 : 0,
          latency_ms: event.latencyMs,
          seconds: event.seconds ?? 0,
        })),
      );
    },
  };
}
