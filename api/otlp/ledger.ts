import type { LedgerFacts } from '../../domain/tracing/admission.ts';
import type { PgClient, PgPool } from '../../platform/postgres.ts';
import { type Lease, LeaseLost, releaseLeaseCte } from './admission-lease.ts';

// The admission ledger's reads and writes for one request (tables in the ingest-ledger
// migration). The caller holds the org's admission lease (admission-lease.ts); each write is one
// statement that gives the lease back and writes only if it was still held.

const validTraceId = /^[0-9a-f]{32}$/;
const validSpanId = /^[0-9a-f]{16}$/;

// Ids are hex on the wire and in events, and 16- and 8-byte keys in the ledger (compact-ledger-ids
// migration): these convert a hex span id to the bigint key and both keys back to hex.
const spanKey = (hex: string) => `('x' || ${hex})::bit(64)::bigint`;
const traceHex = (key: string) => `replace(${key}::text, '-', '')`;

export interface TraceFacts extends LedgerFacts {
  /** When each known trace's first span was received. */
  traceFirstReceived: ReadonlyMap<string, Date>;
}

/**
 * Everything admission needs, set-based over the request's ids: one round trip for the traces,
 * the deletions and the month, and a second only when some spans belong to traces already known.
 */
export async function readLedger(
  pool: PgPool,
  request: { orgId: string; traceIds: string[]; spanIds: string[]; month: string; deletedSince: Date },
): Promise<TraceFacts> {
  // Only valid ids can be stored (admission refuses the rest), and only they convert to the
  // ledger's uuid and bigint keys.
  const uniqueTraces = [...new Set(request.traceIds.filter((traceId) => validTraceId.test(traceId)))];
  const result = await pool.query<{
    traces: [string, number, string][];
    deleted: string[];
    monthly: [number, number] | null;
  }>(
    `SELECT
       (SELECT coalesce(json_agg(json_build_array(${traceHex('trace_id')}, span_count, first_received_at)), '[]')
          FROM ingest_traces WHERE org_id = $1 AND trace_id = ANY($2::uuid[])) AS traces,
       (SELECT coalesce(json_agg(trace_id), '[]')
          FROM deleted_traces WHERE org_id = $1 AND trace_id = ANY($3::text[]) AND deleted_at > $4) AS deleted,
       (SELECT json_build_array(spans, bytes) FROM ingest_monthly WHERE org_id = $1 AND month = $5) AS monthly`,
    [request.orgId, uniqueTraces, uniqueTraces, request.deletedSince, request.month],
  );
  const row = result.rows[0]!;
  const known = new Set(row.traces.map(([traceId]) => traceId));
  return {
    storedSpanKeys: await storedSpans(pool, request, known),
    traceSpanCounts: new Map(row.traces.map(([traceId, count]) => [traceId, count])),
    traceFirstReceived: new Map(row.traces.map(([traceId, , first]) => [traceId, new Date(first)])),
    deletedTraceIds: new Set(row.deleted),
    monthSpans: Number(row.monthly?.[0] ?? 0),
    monthBytes: Number(row.monthly?.[1] ?? 0),
  };
}

/**
 * Which of the request's spans are stored already. A span can be stored only if its trace is
 * (both are written in one transaction and forgotten together), so a batch of new traces needs no
 * look-up at all. The others are probed one key at a time (LATERAL … LIMIT 1): a join here let the
 * planner scan all of a busy org's spans instead.
 */
async function storedSpans(
  pool: PgPool,
  request: { orgId: string; traceIds: string[]; spanIds: string[] },
  knownTraces: ReadonlySet<string>,
): Promise<Set<string>> {
  const traceIds: string[] = [];
  const spanIds: string[] = [];
  request.traceIds.forEach((traceId, index) => {
    const spanId = request.spanIds[index]!;
    if (!knownTraces.has(traceId) || !validSpanId.test(spanId)) return;
    traceIds.push(traceId);
    spanIds.push(spanId);
  });
  if (traceIds.length === 0) return new Set();
  const result = await pool.query<{ trace_id: string; span_id: string }>(
    `SELECT c.trace_id, c.span_id
       FROM unnest($2::text[], $3::text[]) AS c(trace_id, span_id),
            LATERAL (SELECT 1 FROM ingest_spans s
                      WHERE s.org_id = $1 AND s.trace_id = c.trace_id::uuid AND s.span_id = ${spanKey('c.span_id')}
                      LIMIT 1) AS hit`,
    [request.orgId, traceIds, spanIds],
  );
  return new Set(result.rows.map((stored) => `${stored.trace_id}:${stored.span_id}`));
}

/**
 * Records the accepted spans, their traces' counts and the org's month, and gives the lease back,
 * in one statement; throws LeaseLost, having written nothing, if the lease was no longer held.
 */
export async function recordAccepted(
  pool: PgPool,
  lease: Lease,
  accepted: {
    month: string;
    now: Date;
    traceIds: string[];
    spanIds: string[];
    perTrace: Map<string, number>;
    bytes: number;
  },
): Promise<void> {
  const traces = [...accepted.perTrace.keys()];
  const result = await pool.query<{ held: boolean }>(
    `WITH ${releaseLeaseCte('$1', '$10')}, spans AS (
       INSERT INTO ingest_spans (org_id, trace_id, span_id)
       SELECT $1, t, ${spanKey('s')} FROM unnest($2::uuid[], $3::text[]) AS x(t, s)
        WHERE EXISTS (SELECT 1 FROM lease)
       ON CONFLICT DO NOTHING
     ), traces AS (
       INSERT INTO ingest_traces (org_id, trace_id, span_count, first_received_at)
       SELECT $1, t, n, $6 FROM unnest($4::uuid[], $5::int[]) AS x(t, n)
        WHERE EXISTS (SELECT 1 FROM lease)
       ON CONFLICT (org_id, trace_id) DO UPDATE SET span_count = ingest_traces.span_count + EXCLUDED.span_count
     ), monthly AS (
       INSERT INTO ingest_monthly (org_id, month, spans, bytes)
       SELECT $1, $7, $8, $9 WHERE EXISTS (SELECT 1 FROM lease)
       ON CONFLICT (org_id, month) DO UPDATE
         SET spans = ingest_monthly.spans + EXCLUDED.spans, bytes = ingest_monthly.bytes + EXCLUDED.bytes
     )
     SELECT EXISTS (SELECT 1 FROM lease) AS held`,
    [
      lease.orgId,
      accepted.traceIds,
      accepted.spanIds,
      traces,
      traces.map((traceId) => accepted.perTrace.get(traceId) ?? 0),
      accepted.now,
      accepted.month,
      accepted.spanIds.length,
      accepted.bytes,
      lease.holder,
    ],
  );
  if (!result.rows[0]?.held) throw new LeaseLost(lease.orgId);
  lease.givenBack = true;
}

/** Whether the org's ledger knows the trace (has admitted any of its spans). */
export async function traceKnown(pool: PgPool, orgId: string, traceId: string): Promise<boolean> {
  const known = await pool.query(
    'SELECT 1 FROM ingest_traces WHERE org_id = $1 AND trace_id = $2::text::uuid',
    [orgId, traceId],
  );
  return (known.rowCount ?? 0) > 0;
}

/**
 * Forgets a trace's spans and remembers its deletion (its spans are then refused for 24 hours),
 * giving the lease back, in one statement; throws LeaseLost if the lease was no longer held.
 */
export async function recordDeletion(pool: PgPool, lease: Lease, traceId: string, now: Date): Promise<void> {
  const result = await pool.query<{ held: boolean }>(
    `WITH ${releaseLeaseCte('$1', '$4')},
          spans AS (
            DELETE FROM ingest_spans
             WHERE org_id = $1 AND trace_id = $2::text::uuid AND EXISTS (SELECT 1 FROM lease)
          ),
          traces AS (
            DELETE FROM ingest_traces
             WHERE org_id = $1 AND trace_id = $2::text::uuid AND EXISTS (SELECT 1 FROM lease)
          ),
          remembered AS (
            INSERT INTO deleted_traces (org_id, trace_id, deleted_at)
            SELECT $1, $2::text, $3 WHERE EXISTS (SELECT 1 FROM lease)
            ON CONFLICT (org_id, trace_id) DO UPDATE SET deleted_at = EXCLUDED.deleted_at
          )
     SELECT EXISTS (SELECT 1 FROM lease) AS held`,
    [lease.orgId, traceId, now, lease.holder],
  );
  if (!result.rows[0]?.held) throw new LeaseLost(lease.orgId);
  lease.givenBack = true;
}

/**
 * Retention (001, Limits: Retention): forgets traces first received before `cutoff` with their
 * spans, and deletions older than a day (their 24-hour refusal is over).
 */
export async function forgetExpiredTraces(client: PgClient, cutoff: Date, now: Date): Promise<number> {
  // Driven by the expired traces (index on first_received_at) and the span key's prefix, so a
  // run with nothing to forget reads almost nothing, however large the ledger.
  await client.query(
    `DELETE FROM ingest_spans
      WHERE (org_id, trace_id) IN (SELECT org_id, trace_id FROM ingest_traces WHERE first_received_at < $1)`,
    [cutoff],
  );
  const traces = await client.query('DELETE FROM ingest_traces WHERE first_received_at < $1', [cutoff]);
  await client.query(`DELETE FROM deleted_traces WHERE deleted_at < $1::timestamptz - interval '24 hours'`, [
    now,
  ]);
  return traces.rowCount ?? 0;
}
