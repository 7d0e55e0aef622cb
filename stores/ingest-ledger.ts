import { isGoodSpanId, isGoodTraceId, type LedgerFacts } from '../domain/tracing/admission.ts';
import { inTransaction, type PgClient, type PgPool } from '../platform/postgres.ts';
import { dropUndecidedGroups, keptGroupCte } from './admission-groups.ts';
import { type Lease, LeaseLost, leaseWantedColumn, renewLeaseCte } from './admission-lease.ts';

// The admission ledger's reads and writes for one group of requests (tables in the ingest-ledger
// and trace-span-ids migrations), and its retention (jobs/retention.ts). The caller holds the
// org's admission lease (admission-lease.ts); each write is one statement that renews the lease
// (or hands it to a process waiting for it) and writes only if it was still held.

// Ids are hex on the wire and in events, and 16- and 8-byte keys in the ledger (compact-ledger-ids
// migration): these convert a hex span id to the bigint key and both keys back to hex.
const spanKey = (hex: string) => `('x' || ${hex})::bit(64)::bigint`;

// The statements of every admission are prepared by name: Postgres parses each once per
// connection and, after five runs, keeps a generic plan rather than planning every request. A read
// of 512 new spans took 8.3 ms unnamed and 4.7-5.6 ms named, measured alone against the local
// stack's ledger of about a million traces.
// Id lists travel as one comma-joined text, split by Postgres: node-pg escapes an array parameter
// element by element in JS, which cost more of the API's CPU than the query. Only valid ids are
// sent (hex digits, never a comma), and only they convert to the ledger's keys. A span's trace is
// sent as its place in the list of the request's traces (from 1, as WITH ORDINALITY numbers
// them) rather than as the trace id again: a trace id is 33 characters and a trace holds several
// spans, so the statements were half trace ids, every one of which Postgres parsed as a uuid.
const idList = (param: string) => `string_to_array(${param}, ',')`;
const placeList = (param: string) => `string_to_array(${param}, ',')::int[]`;
const traceHex = (key: string) => `replace(${key}::text, '-', '')`;

/** Traces each once, and each span's trace as its place among them (from 1), beside its id. */
class PlacedIds {
  readonly traces: string[] = [];
  readonly spanPlaces: number[] = [];
  readonly spans: string[] = [];
  private readonly places = new Map<string, number>();

  has(traceId: string): boolean {
    return this.places.has(traceId);
  }

  add(traceId: string, spanId: string): void {
    let place = this.places.get(traceId);
    if (place === undefined) {
      place = this.traces.push(traceId);
      this.places.set(traceId, place);
    }
    this.spanPlaces.push(place);
    this.spans.push(spanId);
  }
}

export interface TraceFacts extends LedgerFacts {
  /** When each known trace's first span was received. */
  traceFirstReceived: ReadonlyMap<string, Date>;
  /** Another process waits for the org's lease (its holder, the reader, is `leaseHolder`). */
  leaseWanted: boolean;
}

/**
 * Everything admission needs, set-based over the request's ids, in one round trip: the known
 * traces with their counts, which of the request's spans they already hold, the deletions and the
 * month. A batch of new traces finds no rows and so checks no span at all.
 *
 * Each id is looked up on its own in the primary key (a LIMIT 1 lateral probe, which the planner
 * cannot turn into a join): given `trace_id = ANY(…)`, Postgres chose to scan all of the org's
 * rows whenever its statistics still thought the org small, which a growing org always is between
 * two ANALYZEs. On a fresh stack a read of 128 new traces took 46 ms and scanned 15,616 rows.
 */
export async function readLedger(
  pool: PgPool,
  request: {
    orgId: string;
    traceIds: string[];
    spanIds: string[];
    month: string;
    deletedSince: Date;
    /** Who holds the org's lease for this read. */
    leaseHolder: string;
  },
): Promise<TraceFacts> {
  // Only good ids can be stored (admission refuses the rest, by the same rule), and only they
  // convert to the ledger's uuid and bigint keys. A trace already placed was found good, so a good
  // trace's id is tested once, though a request holds several spans a trace.
  const ids = new PlacedIds();
  request.traceIds.forEach((traceId, index) => {
    const spanId = request.spanIds[index]!;
    if ((ids.has(traceId) || isGoodTraceId(traceId)) && isGoodSpanId(spanId)) ids.add(traceId, spanId);
  });
  const result = await pool.query<{
    traces: [string, number, string][];
    stored: string[];
    deleted: string[];
    monthly: [number, number] | null;
    lease_wanted: boolean;
  }>({
    name: 'ingest-ledger-read',
    text: `WITH known AS (
       SELECT r.place, k.* FROM unnest(${idList('$2')}::uuid[]) WITH ORDINALITY AS r(trace_id, place)
        CROSS JOIN LATERAL (
          SELECT trace_id, span_ids, first_received_at FROM ingest_traces
           WHERE org_id = $1 AND trace_id = r.trace_id LIMIT 1
        ) k
     )
     SELECT
       (SELECT coalesce(json_agg(json_build_array(${traceHex('trace_id')}, cardinality(span_ids), first_received_at)), '[]')
          FROM known) AS traces,
       (SELECT coalesce(json_agg(${traceHex('k.trace_id')} || ':' || c.span_id), '[]')
          FROM unnest(${placeList('$3')}, ${idList('$4')}) AS c(place, span_id)
          JOIN known k ON k.place = c.place
         WHERE ${spanKey('c.span_id')} = ANY(k.span_ids)) AS stored,
       (SELECT coalesce(json_agg(d.trace_id), '[]')
          FROM unnest(${idList('$2')}) AS r(trace_id)
          CROSS JOIN LATERAL (
            SELECT trace_id FROM deleted_traces
             WHERE org_id = $1 AND trace_id = r.trace_id AND deleted_at > $5 LIMIT 1
          ) d) AS deleted,
       (SELECT json_build_array(spans, bytes) FROM ingest_monthly WHERE org_id = $1 AND month = $6) AS monthly,
       ${leaseWantedColumn({ org: '$1', holder: '$7' })}`,
    values: [
      request.orgId,
      ids.traces.join(','),
      ids.spanPlaces.join(','),
      ids.spans.join(','),
      request.deletedSince,
      request.month,
      request.leaseHolder,
    ],
  });
  const row = result.rows[0]!;
  return {
    storedSpanKeys: new Set(row.stored),
    traceSpanCounts: new Map(row.traces.map(([traceId, count]) => [traceId, count])),
    traceFirstReceived: new Map(row.traces.map(([traceId, , first]) => [traceId, new Date(first)])),
    deletedTraceIds: new Set(row.deleted),
    monthSpans: Number(row.monthly?.[0] ?? 0),
    monthBytes: Number(row.monthly?.[1] ?? 0),
    leaseWanted: row.lease_wanted,
  };
}

/** A group's accepted spans as the ledger records them. */
export interface AcceptedRecord {
  /** The admission group, whose row the record inserts kept (admission-groups.ts). */
  groupId: string;
  month: string;
  now: Date;
  traceIds: string[];
  spanIds: string[];
  /**
   * The traces the ledger held when the group read it (`TraceFacts.traceFirstReceived` as read):
   * their rows grow, every other trace's is new.
   */
  knownTraces: { has(traceId: string): boolean };
  bytes: number;
}

/** The accepted spans' ids as the record statement takes them: new traces' apart from known ones'. */
function idLists(accepted: AcceptedRecord): { new: PlacedIds; known: PlacedIds } {
  const lists = { new: new PlacedIds(), known: new PlacedIds() };
  accepted.traceIds.forEach((traceId, index) => {
    (accepted.knownTraces.has(traceId) ? lists.known : lists.new).add(traceId, accepted.spanIds[index]!);
  });
  return lists;
}

/**
 * Records a group's accepted spans in their traces' rows and the org's month, marks the group
 * kept, and renews the lease, in one statement run while `deliver` has Kafka acknowledge them, in a
 * transaction committed only once it has: the ledger's write costs the group no time of its own
 * beyond the commit, and spans Kafka refused are never recorded (the transaction is rolled back and
 * `deliver`'s error thrown). Whatever fails, the group is not kept, so its spans, even those Kafka
 * took, are never projected (admission-groups.ts): the caller's 503 is true. The statement and the publish start together, so the server writes
 * while Kafka acknowledges. Throws LeaseLost, having written nothing, if the lease was no longer
 * held. Returns only once the delivery has settled, whatever failed, so nothing of the group is
 * still in flight when the caller gives the lease back; and whether the lease was handed to a
 * process waiting for it (then it is that one's once this returns, and the caller's no more).
 */
export async function recordAccepted(
  pool: PgPool,
  lease: Lease,
  accepted: AcceptedRecord,
  deliver: () => Promise<unknown>,
): Promise<{ handedOver: boolean }> {
  const delivered = deliver().then(
    () => undefined,
    (refusal: unknown) => ({ refusal }),
  );
  try {
    const sent = performance.now();
    const handedOver = await inTransaction(pool, async (client) => {
      const ids = idLists(accepted);
      const result = await client.query<{ held: boolean; handed_over: boolean | null }>({
        name: 'ingest-ledger-record',
        text: recordStatement,
        values: [
          lease.orgId,
          ids.new.traces.join(','),
          ids.new.spans.join(','),
          accepted.now,
          accepted.month,
          accepted.spanIds.length,
          accepted.bytes,
          lease.holder,
          lease.ttlMs,
          ids.known.traces.join(','),
          ids.known.spans.join(','),
          ids.new.spanPlaces.join(','),
          ids.known.spanPlaces.join(','),
          accepted.groupId,
        ],
      });
      const refused = await delivered;
      if (refused) throw refused.refusal;
      if (!result.rows[0]?.held) throw new LeaseLost(lease.orgId);
      return result.rows[0].handed_over === true;
    });
    lease.validUntil = sent + lease.ttlMs;
    return { handedOver };
  } catch (error) {
    // Not kept, or (a commit whose answer was lost) not known to be: the group is marked dropped
    // unless it was kept, so its consumer need not wait to learn so. Not waited for: the caller
    // answers 503 now, and a Postgres that is away leaves the marking to the consumer.
    void dropUndecidedGroups(pool, [accepted.groupId]).catch(() => undefined);
    throw error;
  } finally {
    await delivered;
  }
}

// The record commits waiting for the disk, as every transaction does: its group's row, kept, is
// what lets the group's spans into the read models, and a 200 is answered only once it is
// durable. (It committed without the wait before groups had fates: a record lost in a crash of
// Postgres then lost only the ledger's count of spans still projected; now it would lose the
// spans. The wait held the org's line 7.6 and 8.9 ms a group instead of 4.1 and 5.1, bench/peer.)

/** One ledger row per trace of the id lists given (the traces, and each span's trace's place and id). */
const traceRows = (traceIds: string, spanPlaces: string, spanIds: string) =>
  `INSERT INTO ingest_traces (org_id, trace_id, first_received_at, span_ids)
     SELECT $1, t.trace_id, $4, s.span_ids
       FROM unnest(${idList(traceIds)}::uuid[]) WITH ORDINALITY AS t(trace_id, place)
       JOIN (SELECT place, array_agg(${spanKey('span_id')}) AS span_ids
               FROM unnest(${placeList(spanPlaces)}, ${idList(spanIds)}) AS x(place, span_id)
              GROUP BY place) s ON s.place = t.place
      WHERE EXISTS (SELECT 1 FROM lease)`;

// A new trace's row is inserted without ON CONFLICT: under the org's lease no other writer can
// have inserted it since the group's read, and the conflict check is a second descent of the
// primary key per trace. Measured alone against the local ledger of 16 million traces, a group
// of 200 new traces took 1.45 ms to insert plainly and 1.93 ms with the upsert (medians of 35).
// Were a row there after all, the statement fails and the group with it (503, resent, read
// again). A known trace's row grows by upsert, so one that retention forgot since is recorded
// anew.
const recordStatement = `WITH ${renewLeaseCte({ org: '$1', holder: '$8', ttl: '$9' })},
   ${keptGroupCte({ group: '$14', when: 'EXISTS (SELECT 1 FROM lease)' })}, new_traces AS (
     ${traceRows('$2', '$12', '$3')}
   ), known_traces AS (
     ${traceRows('$10', '$13', '$11')}
     ON CONFLICT (org_id, trace_id) DO UPDATE SET span_ids = ingest_traces.span_ids || EXCLUDED.span_ids
   ), monthly AS (
     INSERT INTO ingest_monthly (org_id, month, spans, bytes)
     SELECT $1, $5, $6, $7 WHERE EXISTS (SELECT 1 FROM lease)
     ON CONFLICT (org_id, month) DO UPDATE
       SET spans = ingest_monthly.spans + EXCLUDED.spans, bytes = ingest_monthly.bytes + EXCLUDED.bytes
   )
   SELECT EXISTS (SELECT 1 FROM lease) AS held, (SELECT handed_over FROM lease) AS handed_over`;

/** Whether the org's ledger knows the trace (has admitted any of its spans). */
export async function traceKnown(pool: PgPool, orgId: string, traceId: string): Promise<boolean> {
  const known = await pool.query(
    'SELECT 1 FROM ingest_traces WHERE org_id = $1 AND trace_id = $2::text::uuid',
    [orgId, traceId],
  );
  return (known.rowCount ?? 0) > 0;
}

/**
 * Forgets a trace and its spans and remembers its deletion (its spans are then refused for 24
 * hours), renewing the lease, in one statement; throws LeaseLost if the lease was no longer held.
 * Returns whether the lease was handed to a process waiting for it.
 */
export async function recordDeletion(
  pool: PgPool,
  lease: Lease,
  traceId: string,
  now: Date,
): Promise<{ handedOver: boolean }> {
  const sent = performance.now();
  const result = await pool.query<{ held: boolean; handed_over: boolean | null }>(
    `WITH ${renewLeaseCte({ org: '$1', holder: '$4', ttl: '$5' })},
          traces AS (
            DELETE FROM ingest_traces
             WHERE org_id = $1 AND trace_id = $2::text::uuid AND EXISTS (SELECT 1 FROM lease)
          ),
          remembered AS (
            INSERT INTO deleted_traces (org_id, trace_id, deleted_at)
            SELECT $1, $2::text, $3 WHERE EXISTS (SELECT 1 FROM lease)
            ON CONFLICT (org_id, trace_id) DO UPDATE SET deleted_at = EXCLUDED.deleted_at
          )
     SELECT EXISTS (SELECT 1 FROM lease) AS held, (SELECT handed_over FROM lease) AS handed_over`,
    [lease.orgId, traceId, now, lease.holder, lease.ttlMs],
  );
  if (!result.rows[0]?.held) throw new LeaseLost(lease.orgId);
  lease.validUntil = sent + lease.ttlMs;
  return { handedOver: result.rows[0].handed_over === true };
}

/**
 * Retention (001, Limits: Retention): forgets traces first received before `cutoff` with their
 * spans, and deletions older than a day (their 24-hour refusal is over).
 */
export async function forgetExpiredTraces(client: PgClient, cutoff: Date, now: Date): Promise<number> {
  // Driven by the index on first_received_at: a run with nothing to forget reads almost nothing.
  const traces = await client.query('DELETE FROM ingest_traces WHERE first_received_at < $1', [cutoff]);
  await client.query(`DELETE FROM deleted_traces WHERE deleted_at < $1::timestamptz - interval '24 hours'`, [
    now,
  ]);
  return traces.rowCount ?? 0;
}
