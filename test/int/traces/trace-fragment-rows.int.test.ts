import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReceivedTrace, SpanEvent } from '../../../domain/tracing/events.ts';
import { spanKinds } from '../../../domain/tracing/span.ts';
import { type ClickHouseClient, createClickHouse, identifier } from '../../../platform/clickhouse.ts';
import { insertRowBinary, RowBinaryWriter } from '../../../platform/clickhouse-rowbinary.ts';
import { spanColumns, spanRecordOf, writeSpanRows } from '../../../projections/spans-rowbinary.ts';
import { traceFragmentColumns } from '../../../projections/trace-fragments-rowbinary.ts';
import { spanEventBytes } from '../../harness/span-records.ts';
import {
  publishedSpan,
  randomSpanId as spanId,
  spansReceivedEvent,
  randomTraceId as traceId,
} from '../../harness/spans.ts';

// Until migration 0007, a materialized view wrote the trace list's fragments inside ClickHouse
// from each insert into `spans`; the spans projection now writes them itself
// (projections/trace-fragments-rowbinary.ts). Here ClickHouse runs the view's own SELECT (the
// backfill statement of 0003, which is the view's text) over the same spans' rows, one event at a
// time as the projection makes one fragment per trace of each event, and each fragment written
// must be the row the view would have made: ties in start broken by place, roots before other
// spans, empty values apart from absent ones, 64-bit starts and offsets, and bytes of every kind.

const suffix = randomBytes(4).toString('hex');
const tables = {
  spans: `fragment_spans_${suffix}`,
  expected: `fragments_by_view_${suffix}`,
  written: `fragments_written_${suffix}`,
};

/** 0003's backfill: the view's SELECT over `spans`, inserted into `trace_fragments`. */
const viewInsert = readFileSync(
  new URL('../../../infra/migrations/clickhouse/0003_trace_fragments.sql', import.meta.url),
  'utf8',
)
  .split(/;\s*$/m)
  .map((statement) => statement.replace(/^\s*--.*$/gm, '').trim())
  .find((statement) => statement.startsWith('INSERT INTO trace_fragments'));

let clickhouse: ClickHouseClient;
beforeAll(async () => {
  clickhouse = createClickHouse();
  await clickhouse.command({ query: `CREATE TABLE ${tables.spans} AS spans` });
  await clickhouse.command({ query: `CREATE TABLE ${tables.expected} AS trace_fragments` });
  await clickhouse.command({ query: `CREATE TABLE ${tables.written} AS trace_fragments` });
});
afterAll(async () => {
  for (const table of Object.values(tables))
    await clickhouse.command({ query: `DROP TABLE IF EXISTS ${identifier(table).text}` });
  await clickhouse.close();
});

/** Each event's spans through the view, and its fragments as the projection writes them. */
async function project(events: { event: Extract<SpanEvent, { type: 'SpansReceived' }>; offset: string }[]) {
  if (!viewInsert) throw new Error('0003 has no backfill statement to run');
  // The view's columns: those the table had then. A generation's cost came later (0012), and the
  // view's rows take its default, one NULL per generation, as every fragment from before it does.
  const viewColumns = traceFragmentColumns.filter((column) => column !== 'generation_cost_nano_usd');
  const byView = viewInsert
    .replace('INSERT INTO trace_fragments', `INSERT INTO ${tables.expected} (${viewColumns.join(', ')})`)
    .replace(/FROM spans\b/, `FROM ${tables.spans}`);
  const fragments = new RowBinaryWriter();
  for (const { event, offset } of events) {
    const record = spanRecordOf(spanEventBytes(event));
    if (record?.type !== 'SpansReceived') throw new Error('not received spans');
    const rows = new RowBinaryWriter();
    writeSpanRows(record, offset, rows, fragments);
    await clickhouse.command({ query: `TRUNCATE TABLE ${tables.spans}` });
    await insertRowBinary(clickhouse, tables.spans, spanColumns, rows.bytes());
    await clickhouse.command({ query: byView });
  }
  await insertRowBinary(clickhouse, tables.written, traceFragmentColumns, fragments.bytes());
}

/** A table's fragments, the set-valued arrays sorted (the view's order within them is the engine's). */
async function fragmentsIn(table: string): Promise<Record<string, unknown>[]> {
  const result = await clickhouse.query({
    query: `SELECT org_id, lower(hex(trace_id)) AS trace_hex, trace_first_received_at, min_start_time_unix_nano,
        max_end_time_unix_nano, arraySort(arrayMap(id -> lower(hex(id)), span_ids)) AS span_hexes,
        arraySort(arrayMap(id -> lower(hex(id)), error_span_ids)) AS error_span_hexes,
        arraySort(arrayMap((id, i, o, c) -> concat(lower(hex(id)), ':', toString(i), ':', toString(o), ':',
          ifNull(toString(c), 'none')),
          generation_span_ids, generation_input_tokens, generation_output_tokens, generation_cost_nano_usd)) AS generations,
        root_span, trace_session_id, trace_user_id, trace_service, trace_environment,
        arraySort(span_models) AS span_models, arraySort(span_kinds) AS span_kinds,
        arraySort(span_names) AS span_names
      FROM ${identifier(table).text}
      ORDER BY trace_id, min_start_time_unix_nano, root_span, trace_session_id, span_ids`,
    format: 'JSONEachRow',
  });
  // The ids are stored as their bytes: read back as hex, under their names.
  const read = await result.json<Record<string, unknown>>();
  return read.map(({ trace_hex, span_hexes, error_span_hexes, ...row }) => ({
    ...row,
    trace_id: trace_hex,
    span_ids: span_hexes,
    error_span_ids: error_span_hexes,
  }));
}

const at = new Date('2026-11-20T10:00:00.750Z');
const received = (traces: ReceivedTrace[]) => spansReceivedEvent('org_fragments', traces, at);

/** A deterministic sequence in [0, 1), so a failure can be run again as it was. */
function sequence(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('trace fragments written by the projection, against the view they replace', () => {
  it('are the rows the view makes of the same spans', async () => {
    const rootId = spanId();
    const shared = traceId();
    const hand: ReceivedTrace = {
      traceId: shared,
      traceFirstReceivedAt: at,
      spans: [
        // Starts before its root, has a session that is empty, and a model used twice.
        publishedSpan({
          spanId: spanId(),
          parentSpanId: rootId,
          name: 'call\tone\n\\',
          kind: 'generation',
          startTimeUnixNano: 500n,
          endTimeUnixNano: 9_000n,
          model: 'gpt-4o',
          inputTokens: 4_294_967_297,
          outputTokens: null,
          sessionId: '',
          statusCode: 2,
        }),
        publishedSpan({
          spanId: rootId,
          name: 'agent ünïcödé 🚀',
          kind: 'agent',
          startTimeUnixNano: 1_000n,
          endTimeUnixNano: 18_446_744_073_709_551_615n,
          userId: 'user-root',
          serviceName: 'svc',
        }),
        // A second root with the same start: the one placed first wins.
        publishedSpan({
          spanId: spanId(),
          name: 'second root',
          startTimeUnixNano: 1_000n,
          userId: 'user-late',
        }),
        publishedSpan({
          spanId: spanId(),
          parentSpanId: rootId,
          name: 'call\tone\n\\',
          kind: 'generation',
          startTimeUnixNano: 1_763_632_800_123_456_789n,
          model: 'gpt-4o',
          inputTokens: 0,
          outputTokens: 7,
          sessionId: 'session-late',
          environment: 'prod',
        }),
        publishedSpan({
          spanId: '',
          parentSpanId: rootId,
          name: '',
          kind: 'tool',
          startTimeUnixNano: 0n,
          model: '',
        }),
      ],
    };
    const orphans: ReceivedTrace = {
      traceId: traceId(),
      traceFirstReceivedAt: new Date('2026-11-19T23:59:59.999Z'),
      spans: [3_000n, 2_000n, 2_000n].map((start, place) =>
        publishedSpan({
          spanId: spanId(),
          parentSpanId: spanId(),
          name: `orphan ${place}`,
          startTimeUnixNano: start,
          endTimeUnixNano: start + 10n,
          serviceName: `service ${place}`,
          environment: place === 2 ? 'staging' : null,
        }),
      ),
    };

    // Traces of random spans: roots or not, ties in start, values present, empty or absent.
    const next = sequence(20261129);
    const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)]!;
    const maybe = (value: string) => pick([null, '', value, `${value}-${pick(['a', 'b'])}`]);
    const randomTraces = Array.from({ length: 40 }, (): ReceivedTrace => {
      const ids = Array.from({ length: 1 + Math.floor(next() * 12) }, spanId);
      return {
        traceId: traceId(),
        traceFirstReceivedAt: at,
        spans: ids.map((id) =>
          publishedSpan({
            spanId: id,
            parentSpanId: next() < 0.3 ? '' : pick(ids),
            name: pick(['a', 'b', 'é', 'tool call', '']),
            kind: pick(spanKinds),
            startTimeUnixNano: BigInt(pick([0, 1, 5, 2 ** 33])) * 1_000_000_000n + BigInt(pick([0, 7])),
            endTimeUnixNano: BigInt(Math.floor(next() * 2 ** 40)),
            statusCode: pick([0, 1, 2] as const),
            model: maybe('model'),
            inputTokens: pick([null, 0, 12]),
            outputTokens: pick([null, 3]),
            sessionId: maybe('session'),
            userId: maybe('user'),
            serviceName: maybe('service'),
            environment: maybe('env'),
          }),
        ),
      };
    });

    // More distinct names and models than are compared byte by byte, each seen again after.
    const many: ReceivedTrace = {
      traceId: traceId(),
      traceFirstReceivedAt: at,
      spans: Array.from({ length: 30 }, (_, place) =>
        publishedSpan({
          spanId: spanId(),
          parentSpanId: place === 0 ? '' : spanId(),
          name: `step ${place % 13}`,
          model: `model ${place % 11}`,
          startTimeUnixNano: BigInt(place),
        }),
      ),
    };

    await project([
      { event: received([hand, orphans, many]), offset: '17' },
      // The same trace in a later event, at an offset past 32 bits: a second fragment of its own.
      { event: received([{ ...hand, spans: hand.spans.slice(1, 3) }]), offset: '4294967301' },
      { event: received(randomTraces.slice(0, 20)), offset: '9007199254740993' },
      { event: received(randomTraces.slice(20)), offset: '255' },
    ]);

    const expected = await fragmentsIn(tables.expected);
    expect(expected).toHaveLength(3 + 1 + randomTraces.length);
    expect(expected.find((row) => row.trace_id === many.traceId)).toMatchObject({
      span_names: Array.from({ length: 13 }, (_, n) => `step ${n}`).sort(),
      span_models: Array.from({ length: 11 }, (_, n) => `model ${n}`).sort(),
    });
    expect(expected.find((row) => row.trace_id === shared && row.root_span !== null)).toMatchObject({
      root_span: `0${'00000000000003E8'}${'0000000000000011'}00000001agent ünïcödé 🚀`,
      trace_session_id: `1${'00000000000001F4'}${'0000000000000011'}00000000`,
    });
    expect(await fragmentsIn(tables.written)).toEqual(expected);
  });
});
