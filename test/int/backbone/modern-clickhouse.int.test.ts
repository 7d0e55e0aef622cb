import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickHouseReads } from '../../../api/clickhouse-reads.ts';
import {
  encodeCursor,
  type RequestsQuery,
  readLoggedRequest,
  readRequestLog,
} from '../../../api/inference/requests-list.ts';
import {
  errorsByDayAndKind,
  latencyByKind,
  type Range,
  usageByModel,
} from '../../../api/queries/analytics-store.ts';
import { conversationTurns, tracesWith } from '../../../api/queries/sessions-store.ts';
import { findSpan, traceOutline, traceSpans } from '../../../api/queries/spans-store.ts';
import { listTraces, oneTrace, type TraceFilter } from '../../../api/queries/traces-store.ts';
import { admissionFates } from '../../../consumers/projections.ts';
import type { SpanEvent } from '../../../domain/tracing/events.ts';
import type { UsageRecorded } from '../../../domain/usage/events.ts';
import { migrateClickHouse } from '../../../infra/migrate.ts';
import { createDatabaseStatement } from '../../../infra/stack/clickhouse.ts';
import { compactSpanFacts } from '../../../jobs/span-facts-compaction.ts';
import { dropExpiredSpanPartitions } from '../../../jobs/span-retention.ts';
import { readLogTotals } from '../../../jobs/usage-log.ts';
import { type ClickHouseClient, createClickHouse, identifier } from '../../../platform/clickhouse.ts';
import { createPgPool, type PgPool } from '../../../platform/postgres.ts';
import type { Delivered } from '../../../projections/projection.ts';
import { spansClickHouseProjection } from '../../../projections/spans-clickhouse.ts';
import { usageClickHouseProjection } from '../../../projections/usage-clickhouse.ts';
import type { BillingFilter } from '../../../stores/billing.ts';
import { type ModernClickHouse, startModernClickHouse } from '../../harness/modern-clickhouse.ts';
import { spanRecord } from '../../harness/span-records.ts';
import {
  agentTrace,
  dayAt,
  nanos,
  newTraceId,
  span,
  spansReceived,
  traceDeleted,
} from '../traces/fixtures.ts';

// DESIGN.md, Storage: the SQL must run on ClickHouse 18.16 (our local server) and on current
// releases (users run 24.x to 26.x and ClickHouse Cloud). So every ClickHouse migration and every
// query the platform sends runs here twice, through the platform's own functions and its own
// client: on the local 18.16 (in a database of this test's own) and on ClickHouse 26 (chDB,
// in-process, from the project's virtualenv). Both must accept every statement, and every answer
// must be the same on both.
//
// Nothing is copied: the migrations are infra/migrations/clickhouse, the queries are what the
// stores, projections and jobs build from the parameters given, every optional filter included
// (the filter objects are `Required<…>`, so a new filter does not compile until it is given here).
// And a new place that sends SQL cannot hide: the last test lists every call of a ClickHouse
// client's query, command, insert or exec in the platform's source and fails for any this file
// did not run.

const root = fileURLToPath(new URL('../../../', import.meta.url));
const database = 'orrery';
const scratch = `orrery_modern_${randomBytes(4).toString('hex')}`;

interface Engine {
  name: string;
  clickhouse: ClickHouseClient;
}

/** Where each client call came from (file:line in the platform's source), as they ran. */
const ran = new Set<string>();
const clientMethods = new Set(['query', 'command', 'insert', 'exec']);

/** The client, unchanged, noting where each of its calls comes from. */
function recorded(clickhouse: ClickHouseClient): ClickHouseClient {
  return new Proxy(clickhouse, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (!clientMethods.has(String(property))) return value.bind(target);
      return (...args: unknown[]) => {
        const site = callerOf(new Error().stack ?? '');
        if (site) ran.add(site);
        return value.apply(target, args);
      };
    },
  });
}

/** The first frame in the platform's own source (not this test, not node_modules). */
function callerOf(stack: string): string | undefined {
  for (const line of stack.split('\n').slice(1)) {
    const match = /\(?(?:file:\/\/)?(\/[^():]+\.ts):(\d+):\d+\)?$/.exec(line.trim());
    if (!match) continue;
    const file = relative(root, match[1]!);
    if (file.startsWith('test/') || file.startsWith('node_modules/') || file.startsWith('..')) continue;
    return `${file}:${match[2]}`;
  }
  return undefined;
}

let modern: ModernClickHouse;
let legacy: Engine;
let current: Engine;
let admin: ClickHouseClient;
/** The admission groups' fates, which the spans' projection reads (its events here have none). */
let pool: PgPool;

beforeAll(async () => {
  pool = createPgPool(1);
  modern = await startModernClickHouse();
  admin = createClickHouse({ database: 'default' });
  await admin.command({ query: createDatabaseStatement(scratch) });
  const bootstrap = createClickHouse({ url: modern.url, database: 'default' });
  await bootstrap.command({ query: createDatabaseStatement(database) });
  await bootstrap.close();
  legacy = { name: 'ClickHouse 18.16', clickhouse: recorded(createClickHouse({ database: scratch })) };
  current = {
    name: `ClickHouse ${modern.version} (chDB)`,
    clickhouse: recorded(createClickHouse({ url: modern.url, database })),
  };
});

afterAll(async () => {
  await Promise.all([legacy?.clickhouse.close(), current?.clickhouse.close()]);
  await admin?.command({ query: `DROP DATABASE IF EXISTS ${identifier(scratch).text}` });
  await admin?.close();
  await modern?.stop();
  await pool?.end();
});

// 18.16 parses decimal text into Float64 without correct rounding (`toFloat64('6.69')` is
// 6.6899999999999995, one unit in the last place below the double nearest 6.69), current releases
// parse it exactly; the API rounds latencies to 0.01 ms for that reason. Fractions are compared
// to within a few units in the last place; everything else exactly.
expect.addEqualityTesters([
  (a: unknown, b: unknown) => {
    if (typeof a !== 'number' || typeof b !== 'number' || Number.isInteger(a) || Number.isInteger(b))
      return undefined;
    return Math.abs(a - b) <= 4 * Number.EPSILON * Math.max(Math.abs(a), Math.abs(b));
  },
]);

/** Runs `read` on both engines; they must give the same answer, which is returned. */
async function onBoth<T>(read: (clickhouse: ClickHouseClient) => Promise<T>): Promise<T> {
  const [answer, modernAnswer] = await Promise.all([read(legacy.clickhouse), read(current.clickhouse)]);
  expect(modernAnswer, `${current.name} answers as ${legacy.name} does`).toEqual(answer);
  return answer;
}

/** In sequence, not together: each engine gets the same writes in the same order. */
async function writeOnBoth(write: (clickhouse: ClickHouseClient) => Promise<void>): Promise<void> {
  for (const engine of [legacy, current]) await write(engine.clickhouse);
}

const ms = 1_000_000n;
const orgA = `org_${randomBytes(4).toString('hex')}`;
const orgB = `org_${randomBytes(4).toString('hex')}`;
const now = new Date();

// Traces of org A: an agent's turn; a trace whose root arrives last, with children starting
// together and values that are NULL, empty or set; an orphan without root; a trace deleted
// between its spans; a trace first received 40 days ago (past retention). Org B: one trace.
const agent = agentTrace(dayAt(2, 10));
const lateId = newTraceId();
const t = nanos(dayAt(3, 11));
const late = {
  children: [
    span(lateId, {
      spanId: 'ffffffffffffff01',
      parentSpanId: 'aaaaaaaaaaaaaaaa',
      name: 'embed query',
      kind: 'generation',
      model: 'text-embedding-3-small',
      inputTokens: 12,
      startTimeUnixNano: t + 5n,
      endTimeUnixNano: t + 1n, // ends before it starts: a sender's clock step
      sessionId: 's-first',
      environment: 'staging',
    }),
    span(lateId, {
      spanId: '0000000000000001',
      parentSpanId: 'aaaaaaaaaaaaaaaa',
      name: "search docs: 'quoted' \\ and 中文",
      kind: 'retrieval',
      startTimeUnixNano: t + 5n,
      sessionId: 's-second',
      userId: 'u-second',
    }),
  ],
  root: span(lateId, {
    spanId: 'aaaaaaaaaaaaaaaa',
    name: 'RAG pipeline',
    kind: 'agent',
    startTimeUnixNano: t + 7n,
    endTimeUnixNano: t + 10_000_000_000n,
    serviceName: '',
    statusCode: 2,
  }),
};
const orphanId = newTraceId();
const orphans = [
  span(orphanId, { parentSpanId: '1111111111111111', name: 'tool call', kind: 'tool' }),
  span(orphanId, {
    parentSpanId: '1111111111111111',
    name: 'chat claude',
    kind: 'generation',
    model: 'claude-sonnet-4',
    inputTokens: 300,
    outputTokens: 40,
    startTimeUnixNano: nanos(dayAt(1, 9)),
    endTimeUnixNano: nanos(dayAt(1, 9)) + 2500n * ms,
    userId: 'user-7',
  }),
];
const deletedId = newTraceId();
const expiredId = newTraceId();
const otherId = newTraceId();

const spanEvents: SpanEvent[] = [
  spansReceived(orgA, agent.traceId, agent.spans),
  spansReceived(orgA, lateId, late.children),
  spansReceived(orgA, deletedId, [span(deletedId, { name: 'gone' })]),
  spansReceived(orgA, agent.traceId, agent.spans), // redelivered
  traceDeleted(orgA, deletedId),
  spansReceived(orgA, lateId, [late.root]),
  spansReceived(orgA, orphanId, orphans),
  spansReceived(orgA, deletedId, [span(deletedId, { name: 'sent again after the deletion' })]),
  spansReceived(
    orgA,
    expiredId,
    [span(expiredId, { name: 'old' })],
    new Date(now.getTime() - 40 * 86_400_000),
  ),
  spansReceived(orgB, otherId, [span(otherId, { name: 'other org', model: 'gpt-4o', inputTokens: 1 })]),
];

const usage = (index: number, at: Date, overrides: Partial<UsageRecorded> = {}): UsageRecorded => ({
  type: 'UsageRecorded',
  eventId: `event-${index}`,
  orgId: orgA,
  occurredAt: at,
  requestId: `req_${String(index).padStart(4, '0')}`,
  keyId: index % 2 === 0 ? 'key_even' : 'key_odd',
  model: index % 3 === 0 ? 'scribe-mini' : 'scribe',
  endpoint: index % 2 === 0 ? 'titles' : 'previews',
  inputTokens: 100 + index,
  outputTokens: 7,
  fallback: index % 5 === 0,
  latencyMs: 6.69 + index / 7,
  ...overrides,
});
const usageEvents: UsageRecorded[] = [
  ...Array.from({ length: 12 }, (_, index) => usage(index, dayAt(index % 3, 8 + index, index))),
  // Two requests in the same millisecond, and one request delivered twice.
  usage(20, new Date(Date.UTC(2026, 10, 20, 12, 0, 0, 250))),
  usage(21, new Date(Date.UTC(2026, 10, 20, 12, 0, 0, 250))),
  usage(20, new Date(Date.UTC(2026, 10, 20, 12, 0, 0, 250))),
  // A Playground request: no key, the person whose session sent it.
  usage(40, dayAt(0, 7, 30), { keyId: '', personId: 'person_ada' }),
  usage(30, dayAt(1, 9), { orgId: orgB }),
];

function delivered<E>(events: E[], topic: string): Delivered<E>[] {
  return events.map((event, offset) => ({ topic, partition: 0, offset: String(offset), key: null, event }));
}

describe('every ClickHouse migration and query, on 18.16 and on a current ClickHouse', () => {
  it('runs every migration on both, twice, to the same tables', async () => {
    expect(modern.version).toMatch(/^2[6-9]\./);
    const migrations = readdirSync(join(root, 'infra/migrations/clickhouse'))
      .filter((file) => file.endsWith('.sql'))
      .map((file) => `clickhouse migration: applied ${file.replace(/\.sql$/, '')}`)
      .sort();
    for (const engine of [legacy, current]) {
      const first: string[] = [];
      const second: string[] = [];
      await migrateClickHouse(engine.clickhouse, (line) => first.push(line));
      await migrateClickHouse(engine.clickhouse, (line) => second.push(line));
      expect(first, `${engine.name} applies every migration`).toEqual(migrations);
      expect(second, `${engine.name} applies nothing twice`).toEqual([]);
    }
    const columns = await onBoth(async (clickhouse) => {
      const result = await clickhouse.query({
        query: `SELECT table, name, type FROM system.columns
          WHERE database = currentDatabase() ORDER BY table, name`,
        format: 'JSONEachRow',
      });
      return result.json<{ table: string; name: string; type: string }>();
    });
    expect([...new Set(columns.map((column) => column.table))]).toEqual(
      expect.arrayContaining(['requests', 'schema_migrations', 'spans', 'trace_fragments', 'span_facts']),
    );
    // The request log's columns added by ALTER (0005, 0013), there on both engines.
    expect(columns).toEqual(
      expect.arrayContaining([
        { table: 'requests', name: 'person_id', type: 'String' },
        { table: 'requests', name: 'seconds', type: 'UInt64' },
      ]),
    );
  });

  it('projects the same usage and span events on both', async () => {
    await writeOnBoth((clickhouse) =>
      usageClickHouseProjection(clickhouse).project(delivered(usageEvents, 'orrery.usage.v1'), 'test'),
    );
    await writeOnBoth((clickhouse) =>
      spansClickHouseProjection(clickhouse, admissionFates(pool)).project(
        delivered(spanEvents.map(spanRecord), 'orrery.spans.v1'),
        'test',
      ),
    );
  });

  it('lists traces with every filter, alone and together, and pages through them', async () => {
    const base = { limit: 100 } satisfies TraceFilter;
    const all = await onBoth((clickhouse) => listTraces(clickhouse, orgA, base));
    expect(all.traces.map((trace) => trace.summary.traceId).sort()).toEqual(
      [agent.traceId, lateId, orphanId, deletedId, expiredId].sort(),
    );
    const agentSummary = all.traces.find((trace) => trace.summary.traceId === agent.traceId)?.summary;
    expect(agentSummary).toMatchObject({ inputTokens: 1500, outputTokens: 300, spanCount: 4, errorCount: 1 });
    expect(agentSummary?.startTimeUnixNano).toBe(agent.root.startTimeUnixNano);

    const every: Required<TraceFilter> = {
      from: dayAt(2, 0),
      to: dayAt(1, 0),
      sessionId: 'session-1',
      userId: 'user-42',
      service: 'support-bot',
      environment: 'production',
      model: 'gpt-4o',
      kind: 'tool',
      name: 'TRACK_',
      cursor: { startTimeUnixNano: nanos(dayAt(0, 0)), traceId: 'f'.repeat(32) },
      limit: 10,
    };
    const together = await onBoth((clickhouse) => listTraces(clickhouse, orgA, every));
    expect(together.traces.map((trace) => trace.summary.traceId)).toEqual([agent.traceId]);
    for (const [name, value] of Object.entries(every)) {
      if (name === 'limit') continue;
      await onBoth((clickhouse) => listTraces(clickhouse, orgA, { limit: 100, [name]: value }));
    }

    // One trace a page, each page after the last one's (start, trace id), as the API's cursor.
    const pages: string[] = [];
    let cursor: TraceFilter['cursor'];
    for (;;) {
      const page = await onBoth((clickhouse) => listTraces(clickhouse, orgA, { limit: 1, cursor }));
      pages.push(...page.traces.map((trace) => trace.summary.traceId));
      const last = page.traces.at(-1)?.summary;
      if (!page.more || !last) break;
      cursor = { startTimeUnixNano: last.startTimeUnixNano, traceId: last.traceId };
    }
    expect(pages).toEqual(all.traces.map((trace) => trace.summary.traceId));
  });

  it("reads each trace's spans and each span", async () => {
    for (const traceId of [agent.traceId, lateId, orphanId, deletedId, otherId, newTraceId()]) {
      await onBoth((clickhouse) => traceSpans(clickhouse, orgA, traceId));
      await onBoth((clickhouse) => traceOutline(clickhouse, orgA, traceId));
      await onBoth((clickhouse) => oneTrace(clickhouse, orgA, traceId));
    }
    const spans = [...agent.spans, ...late.children, late.root, ...orphans];
    for (const one of spans) {
      const found = await onBoth((clickhouse) => findSpan(clickhouse, orgA, one.traceId, one.spanId));
      expect(found?.span.startTimeUnixNano).toBe(one.startTimeUnixNano);
    }
    expect(
      await onBoth((clickhouse) => findSpan(clickhouse, orgA, lateId, 'bbbbbbbbbbbbbbbb')),
    ).toBeUndefined();
  });

  it("reads a session's and a user's traces, and each trace's turn of the conversation", async () => {
    const session = await onBoth((clickhouse) => tracesWith(clickhouse, orgA, 'sessionId', 'session-1'));
    expect(session.map((trace) => trace.summary.traceId)).toContain(agent.traceId);
    const user = await onBoth((clickhouse) => tracesWith(clickhouse, orgA, 'userId', 'user-42'));
    expect(user.map((trace) => trace.summary.traceId)).toContain(agent.traceId);
    const turns = await onBoth(async (clickhouse) =>
      [...(await conversationTurns(clickhouse, orgA, [agent.traceId, lateId])).keys()].sort(),
    );
    expect(turns).toContain(agent.traceId);
  });

  it('answers the analytics, before and after the span facts settle', async () => {
    const range: Range = { from: dayAt(7, 0), to: new Date(now.getTime() + 86_400_000) };
    const answers = (clickhouse: ClickHouseClient) =>
      Promise.all([
        usageByModel(clickhouse, orgA, range),
        latencyByKind(clickhouse, orgA, range),
        errorsByDayAndKind(clickhouse, orgA, range),
      ]);
    // Fresh inserts, a redelivered event among them: read with FINAL.
    const before = await onBoth(answers);
    const [models, latency] = before;
    expect(models.length).toBeGreaterThan(0);
    expect(latency.map((row) => row.kind)).toEqual(['generation', 'tool', 'agent', 'retrieval', 'span']);
    // Each receipt hour merged into one part: read as stored, with the same answers. (Current
    // releases write an insert's part merged already, level 1, so they may have less to do.)
    const settle = { quietMs: 0, maxUnsettledMs: 0 };
    await writeOnBoth(async (clickhouse) => {
      expect(await compactSpanFacts(clickhouse, new Date(), settle)).not.toEqual([]);
    });
    expect(await onBoth((clickhouse) => compactSpanFacts(clickhouse, new Date(), settle))).toEqual([]);
    expect(await onBoth(answers)).toEqual(before);
  });

  it('reads the request log with every filter, and pages through it', async () => {
    const all = await onBoth((clickhouse) => readRequestLog(clickhouse, orgA, { limit: 200 }));
    expect(all.rows).toHaveLength(15);
    // Who made each: a key, or (the Playground's) the person, the other column ''.
    expect(all.rows.filter((row) => row.person_id !== '')).toEqual([
      expect.objectContaining({ request_id: 'req_0040', key_id: '', person_id: 'person_ada' }),
    ]);
    expect(all.rows.every((row) => (row.key_id === '') !== (row.person_id === ''))).toBe(true);
    const every: Required<RequestsQuery> = {
      from: dayAt(2, 0).toISOString(),
      to: new Date(now.getTime() + 86_400_000).toISOString(),
      model: 'scribe',
      key_id: 'key_odd',
      endpoint: 'previews',
      limit: 5,
      cursor: encodeCursor({ atMs: now.getTime() + 86_400_000, requestId: 'req_9999' }),
    };
    const together = await onBoth((clickhouse) => readRequestLog(clickhouse, orgA, every));
    expect(together.rows.length).toBeGreaterThan(0);
    for (const [name, value] of Object.entries(every)) {
      if (name === 'limit') continue;
      await onBoth((clickhouse) => readRequestLog(clickhouse, orgA, { limit: 200, [name]: value }));
    }
    const pages: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await onBoth((clickhouse) => readRequestLog(clickhouse, orgA, { limit: 4, cursor }));
      pages.push(...page.rows.map((row) => row.request_id));
      if (!page.next) break;
      cursor = encodeCursor(page.next);
    }
    expect(pages).toEqual(all.rows.map((row) => row.request_id));
  });

  it('reads one request of the log by its id, and none of another org', async () => {
    const [first] = (await onBoth((clickhouse) => readRequestLog(clickhouse, orgA, { limit: 1 }))).rows;
    expect(first).toBeDefined();
    const found = await onBoth((clickhouse) => readLoggedRequest(clickhouse, orgA, first!.request_id));
    expect(found?.request_id).toBe(first!.request_id);
    const playground = await onBoth((clickhouse) => readLoggedRequest(clickhouse, orgA, 'req_0040'));
    expect(playground).toMatchObject({ key_id: '', person_id: 'person_ada' });
    expect(
      await onBoth((clickhouse) => readLoggedRequest(clickhouse, 'org_nobody', first!.request_id)),
    ).toBeUndefined();
  });

  it('totals the request log for reconciliation', async () => {
    const sorted = <T extends { orgId: string; model: string; day: string }>(rows: T[]) =>
      rows.sort((a, b) => `${a.orgId}${a.model}${a.day}`.localeCompare(`${b.orgId}${b.model}${b.day}`));
    const everything = await onBoth(async (clickhouse) => sorted(await readLogTotals(clickhouse)));
    expect(everything.length).toBeGreaterThan(0);
    const filter: Required<BillingFilter> = {
      orgIds: [orgA, "o'brien"],
      from: '2026-01-01',
      to: '2030-12-31',
    };
    await onBoth(async (clickhouse) => sorted(await readLogTotals(clickhouse, filter)));
  });

  it("reads through the API's bounded reads (api/clickhouse-reads.ts) as the stores read directly", async () => {
    const live = () => new AbortController().signal;
    const direct = await onBoth((clickhouse) => listTraces(clickhouse, orgA, { limit: 100 }));
    const bounded = await onBoth((clickhouse) =>
      new ClickHouseReads(clickhouse, live).read((reader) => listTraces(reader, orgA, { limit: 100 })),
    );
    expect(bounded).toEqual(direct);
  });

  it('drops the span partitions past retention', async () => {
    const dropped = await onBoth((clickhouse) => dropExpiredSpanPartitions(clickhouse, now));
    expect(dropped).toHaveLength(1);
    const left = await onBoth((clickhouse) => listTraces(clickhouse, orgA, { limit: 100 }));
    expect(left.traces.map((trace) => trace.summary.traceId)).not.toContain(expiredId);
  });

  it('ran every place in the platform that sends SQL to ClickHouse', () => {
    expect(sourceFolders).toEqual(expect.arrayContaining(['api', 'infra', 'jobs', 'projections']));
    const sites = clickHouseCallSites();
    expect(sites.length).toBeGreaterThan(10);
    const missed = sites.filter((site) => !ran.has(site));
    expect(missed, 'call sites this test never ran: give them a step above').toEqual([]);
  });
});

/** The platform's source: every top-level folder but the tests', the benchmarks' and the docs'. */
const sourceFolders = readdirSync(root, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
  .map((entry) => entry.name)
  .filter((name) => !['test', 'bench', 'docs', 'node_modules'].includes(name));

/**
 * Every call of query, command, insert or exec on a ClickHouse client in the platform's source, as
 * `file:line`. A client is recognized by its name, `clickhouse` (a variable, a parameter or a
 * property), which the platform uses everywhere; anything typed `ClickHouseClient` or made by
 * `createClickHouse` under another name fails here, so no call can slip past by its spelling.
 */
function clickHouseCallSites(): string[] {
  const sites: string[] = [];
  const misnamed: string[] = [];
  const files = sourceFolders.flatMap((folder) =>
    readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.split('/').includes('node_modules'))
      .map((file) => join(folder, file)),
  );
  for (const file of files) {
    const source = ts.createSourceFile(
      file,
      readFileSync(join(root, file), 'utf8'),
      ts.ScriptTarget.Latest,
      true,
    );
    const at = (node: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const visit = (node: ts.Node): void => {
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        clientMethods.has(node.expression.name.text) &&
        /(^|\.)clickhouse$/.test(node.expression.expression.getText(source))
      )
        sites.push(at(node.expression.name));
      if (
        (ts.isParameter(node) ||
          ts.isVariableDeclaration(node) ||
          ts.isPropertySignature(node) ||
          ts.isPropertyDeclaration(node)) &&
        ((node.type &&
          ts.isTypeReferenceNode(node.type) &&
          node.type.typeName.getText(source) === 'ClickHouseClient') ||
          (ts.isVariableDeclaration(node) &&
            node.initializer?.getText(source).startsWith('createClickHouse('))) &&
        node.name.getText(source) !== 'clickhouse'
      )
        misnamed.push(`${at(node)} ${node.name.getText(source)}`);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  expect(misnamed, 'ClickHouse clients named other than `clickhouse`').toEqual([]);
  return sites;
}
