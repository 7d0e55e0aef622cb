import { type ClickHouseClient, idBytes, identifier, joinSql, sql } from '../platform/clickhouse.ts';
import { insertRowBinary, RowBinaryWriter } from '../platform/clickhouse-rowbinary.ts';
import { logger } from '../platform/logger.ts';
import { poll } from '../platform/poll.ts';
import { type AdmissionFates, keptOnly } from './admission-gate.ts';
import type { Projection } from './projection.ts';
import { type SpanRecord, spanColumns, spanRecordOf, writeSpanRows } from './spans-rowbinary.ts';
import { traceFragmentColumns } from './trace-fragments-rowbinary.ts';

// Span events → ClickHouse `spans` (infra/migrations/clickhouse/0002_spans.sql) and, through its
// materialized view, in the same INSERT, the analytics' `span_facts` (0004); then the trace list's
// `trace_fragments` (0003, 0007), one row per trace of each event. Both are RowBinary rows
// transcoded from the event's bytes (spans-rowbinary.ts, trace-fragments-rowbinary.ts).
//
// A batch is applied in the topic's order as alternating steps: the spans received up to the next
// deletion in one insert, then the deletions in one `ALTER TABLE … DELETE`, and so on; a batch
// without deletions is one insert. A mutation only touches the parts that existed when it was
// submitted, so spans received before a TraceDeleted are deleted and spans of the same trace
// published after it (in the same batch or later) are kept: the topic is the source of truth and
// a replay rebuilds the same rows. (The ingest refuses spans of a trace deleted in the last 24 h,
// so such later spans only come from a trace sent again after that.)
//
// A deletion is one mutation per table: `spans`, `span_facts` and `trace_fragments`.
//
// Received spans are applied only once their admission group is kept (admission-gate.ts): those
// of a group that was answered 503 are left out, even when Kafka took them.
//
// Redelivery: an insert adds copies that every read counts once (spans and span_facts collapse on
// the span's identity, a trace's fragments are read with aggregates a copy cannot change); a
// deletion deletes again whatever the earlier delivery had inserted before it, which leaves the
// same rows.

type SpansReceived = Extract<SpanRecord, { type: 'SpansReceived' }>;

/** A SpansReceived with its offset on its partition. */
export interface ReceivedAt {
  record: SpansReceived;
  offset: string;
}

export type SpanWriteStep =
  | { type: 'insert'; events: ReceivedAt[] }
  | { type: 'delete'; traces: { orgId: string; traceId: string }[] };

/** The batch as alternating insert and delete steps, in the topic's order. */
export function spanWriteSteps(batch: readonly { event: SpanRecord; offset: string }[]): SpanWriteStep[] {
  const steps: SpanWriteStep[] = [];
  for (const { event, offset } of batch) {
    const last = steps.at(-1);
    if (event.type === 'SpansReceived') {
      if (last?.type === 'insert') last.events.push({ record: event, offset });
      else steps.push({ type: 'insert', events: [{ record: event, offset }] });
    } else {
      const trace = { orgId: event.orgId, traceId: event.traceId };
      if (last?.type === 'delete') last.traces.push(trace);
      else steps.push({ type: 'delete', traces: [trace] });
    }
  }
  return steps;
}

/** `spans` and the tables written beside it, which a deletion mutates alike. */
const spanTables = ['spans', 'trace_fragments', 'span_facts'] as const;

const mutationPollMs = 100;
// How long a batch waits for its deletions to be applied before it commits anyway. The wait does
// not cost the group its partitions: librdkafka heartbeats from its own thread (the session
// timeout, 10 s, platform/kafka.ts), and a batch may take up to the poll interval (5 minutes).
const mutationWaitMs = 10_000;

export function spansClickHouseProjection(
  clickhouse: ClickHouseClient,
  fates: AdmissionFates,
): Projection<SpanRecord> {
  // Each insert's rows are written into a buffer kept from an earlier insert: an insert is tens of
  // MB, and growing a new buffer to that for every insert cost the consumers 1.0 s of garbage
  // collection in 20 s at eight LLM exporters (0.4 s reusing them; main thread 29 → 22 µs per
  // span, bench/ingest under --cpu-prof). Two writes may overlap (see gather.ts), so each takes a
  // writer of its own from the ones not in use. A writer grown past what steady ingest needs (a
  // catch-up's writes) is let go rather than kept.
  const idleWriters: RowBinaryWriter[] = [];
  const keptWriterBytes = 64 * 1024 * 1024;

  const takeWriter = () => idleWriters.pop() ?? new RowBinaryWriter();
  const giveBack = (writer: RowBinaryWriter) => {
    writer.clear();
    if (writer.capacity <= keptWriterBytes) idleWriters.push(writer);
  };

  /**
   * The spans' rows, then their traces' fragments. A failure between the two is retried as a
   * whole: the spans written again are copies every read counts once, and so are the fragments.
   */
  async function insert(events: ReceivedAt[]): Promise<void> {
    const rows = takeWriter();
    const fragments = takeWriter();
    try {
      for (const { record, offset } of events) writeSpanRows(record, offset, rows, fragments);
      await insertRowBinary(clickhouse, 'spans', spanColumns, rows.bytes());
      await insertRowBinary(clickhouse, 'trace_fragments', traceFragmentColumns, fragments.bytes());
    } finally {
      giveBack(rows);
      giveBack(fragments);
    }
  }

  async function remove(traces: { orgId: string; traceId: string }[]): Promise<void> {
    const keys = joinSql(
      traces.map((trace) => sql`(${trace.orgId}, ${idBytes(trace.traceId)})`),
      ', ',
    );
    for (const table of spanTables)
      await clickhouse.command({
        query: sql`ALTER TABLE ${identifier(table)} DELETE WHERE (org_id, trace_id) IN (${keys})`.text,
      });
    await untilMutationsDone();
  }

  /**
   * 18.16 runs mutations in the background and has no `mutations_sync`; waiting for them before the
   * offsets are committed means a consumed TraceDeleted is no longer visible to readers. The
   * mutation is durable once submitted, so a wait cut short loses nothing; it is only logged.
   */
  async function untilMutationsDone(): Promise<void> {
    const done = await poll(
      async () => {
        const result = await clickhouse.query({
          query: sql`SELECT count() AS pending FROM system.mutations
            WHERE database = currentDatabase() AND table IN (${joinSql(
              spanTables.map((table) => sql`${table}`),
              ', ',
            )}) AND is_done = 0`.text,
          format: 'JSONEachRow',
        });
        const [row] = await result.json<{ pending: string }>();
        return Number(row?.pending ?? 0) === 0;
      },
      { timeoutMs: mutationWaitMs, intervalMs: mutationPollMs },
    );
    if (!done)
      logger.warn({ tables: spanTables }, 'trace deletion still running in ClickHouse; committing anyway');
  }

  return {
    groupId: 'orrery-spans-clickhouse',
    stream: 'spans',
    // Few large inserts, at most two a second: each insert is a part per table that merges
    // rewrite. Gathering only the partitions' concurrent batches left 12 inserts a second of
    // about 600 spans under one telemetrygen exporter, and ClickHouse merging 9 rows for each
    // written (57 ms of CPU per 1,000 spans); two a second, 19 ms. One a second (14 ms) left a
    // span queryable up to 2.4 s after its answer (a partition's next batch is taken only once
    // the write holding its last is done); two, up to 1.3 s, inside the 2 s issue 10 allows.
    gather: { maxMessages: 20_000, maxWaitMs: 250, minIntervalMs: 500 },
    // A fetch waits for 256 KiB or 100 ms rather than being answered at each produce request:
    // the spans wait for the next insert anyway. At eight telemetrygen exporters (bench/peer)
    // Kafka took 2.3-2.6 ms of CPU per 1,000 spans in four runs of five (3.5 in one) instead of
    // 3.2-3.7; at 20,000 LLM spans a second (bench/ingest --rate) a span was still queryable
    // within 1.4-1.6 s at p99.
    fetchMinBytes: 256 * 1024,
    maxWaitMs: 100,
    from: { value: spanRecordOf },
    async project(batch) {
      for (const step of spanWriteSteps(await keptOnly(batch, fates))) {
        if (step.type === 'insert') await insert(step.events);
        else await remove(step.traces);
      }
    },
  };
}
