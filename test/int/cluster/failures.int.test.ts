import { randomBytes, randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createOrg, enableTracing, grantCredit } from '../../../api/admin/commands.ts';
import { consumerGroupIds } from '../../../consumers/groups.ts';
import { allProjections } from '../../../consumers/projections.ts';
import { type RunningConsumer, runConsumer } from '../../../consumers/runtime.ts';
import type { UsageRecorded } from '../../../domain/usage/events.ts';
import { migrateClickHouse, migratePostgres } from '../../../infra/migrate.ts';
import type { KafkaNode } from '../../../infra/stack/kafka.ts';
import { type ClickHouseClient, createClickHouse, sql } from '../../../platform/clickhouse.ts';
import { parseConfig } from '../../../platform/config.ts';
import { topicEnd, withAdmin } from '../../../platform/kafka.ts';
import { logger } from '../../../platform/logger.ts';
import { createPgPool, type PgPool } from '../../../platform/postgres.ts';
import { createEventProducer, type EventProducer } from '../../../producers/producer.ts';
import { publishUsage } from '../../../producers/usage.ts';
import { reached, storedOffsets } from '../../../projections/postgres-offsets.ts';
import { type StreamName, topics } from '../../../schemas/events/topics.ts';
import { type ModelServer, startModelServer } from '../../harness/model-server.ts';
import { request as otlpRequest, span, toProtobuf } from '../../harness/otlp-fixtures.ts';
import { eventually } from '../../harness/platform.ts';
import { freePort } from '../../harness/ports.ts';
import {
  createDatabases,
  PlatformProcess,
  type SecureTenant,
  startSecureTenant,
} from '../../harness/secure-cluster.ts';

// The platform on a three-node Kafka cluster over SASL_SSL with SCRAM (replication factor 3,
// min.insync.replicas 2), configured only through ORRERY_KAFKA_*, and what it keeps when parts
// fail (issue #9): a broker killed under OTLP and under title load loses nothing acknowledged and
// bills nothing twice; with no quorum the API refuses with 503 and Retry-After and comes back by
// itself; consumers killed in the middle of batches leave the read models as a clean run makes
// them. Every wait is for something observed, bounded.

const log = (line: string) => process.stderr.write(`[failures] ${line}\n`);
const tenantName = 'orrery_failures';
const cleanName = 'orrery_failures_clean';
const inputTokens = 12;

let tenant: SecureTenant;
let model: ModelServer;
let api: PlatformProcess;
let consumers: PlatformProcess;
let producer: EventProducer;
let pool: PgPool;
let clickhouse: ClickHouseClient;
let orgId: string;
let key: string;

beforeAll(async () => {
  model = await startModelServer(() => ({
    line: 'Password reset help',
    usage: { input: inputTokens, output: 4 },
  }));
  tenant = await startSecureTenant(
    tenantName,
    { ORRERY_MODELS: JSON.stringify([{ name: 'failover', writes: ['titles'], baseUrl: model.baseUrl }]) },
    log,
  );
  // The test's own publishes (the org, its key and credit) go to topics just made on a three-node
  // TLS cluster, whose first answers on two busy cores can take seconds: this setup waits as
  // long as it must. The platform's processes keep the defaults, which these tests are about.
  producer = await createEventProducer('orrery-test-failures', {
    settings: {
      ...tenant.config.kafka,
      timeouts: { requestMs: 5_000, deliveryMs: 20_000, callerMs: 20_000 },
    },
  });
  pool = createPgPool(4, tenant.config.postgres.url);
  clickhouse = createClickHouse({ database: tenantName });
  consumers = new PlatformProcess('consumers/main.ts', tenant.environment, await freePort());
  api = new PlatformProcess('api/main.ts', tenant.environment, await freePort());
  await consumers.start();
  const admin = { pool, producer, projectionTimeoutMs: 30_000 };
  const org = await createOrg(admin, 'Failover');
  orgId = org.orgId;
  await grantCredit(admin, orgId, 100_000, 'failure tests');
  await enableTracing(admin, orgId);
  key = (await createApiKey(admin, orgId, ['traces:write', 'inference:invoke'])).key;
  await api.start();
}, 300_000);

afterAll(async () => {
  await api?.stop();
  await consumers?.stop();
  await producer?.disconnect();
  await Promise.all([pool?.end(), clickhouse?.close(), model?.close()]);
  await tenant?.stop();
}, 120_000);

// ---- clients that retry as real ones do --------------------------------------------------------

interface Answer {
  status: number;
  retryAfter: string | null;
  requestId: string | null;
}

async function post(path: string, body: Buffer | string, headers: Record<string, string>): Promise<Answer> {
  const response = await fetch(`${api.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, ...headers },
    body,
    signal: AbortSignal.timeout(30_000),
  }).catch(() => undefined);
  await response?.arrayBuffer();
  return {
    status: response?.status ?? 0,
    retryAfter: response?.headers.get('retry-after') ?? null,
    requestId: response?.headers.get('x-request-id') ?? null,
  };
}

/** Answers other than 200 since the last `refusals()`: what the clients had to retry. */
let retried = 0;
let slowestMs = 0;
/** What the clients met since the last call: answers they retried, and their longest wait. */
const met = () => {
  const said = `${retried} answers retried (503 or none), the slowest answered after ${slowestMs} ms`;
  retried = 0;
  slowestMs = 0;
  return said;
};

/** Sends until 200, as an exporter or an SDK retries a 503 (sooner than Retry-After asks). */
async function untilAnswered(send: () => Promise<Answer>, deadline: number): Promise<Answer> {
  const started = Date.now();
  for (;;) {
    const answer = await send();
    if (answer.status === 200) {
      slowestMs = Math.max(slowestMs, Date.now() - started);
      return answer;
    }
    retried += 1;
    expect([0, 503]).toContain(answer.status);
    if (Date.now() > deadline) throw new Error(`still ${answer.status} at the deadline`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function spansBody(count: number): { body: Buffer; spanKeys: string[] } {
  const traceId = randomBytes(16).toString('hex');
  const spans = Array.from({ length: count }, (_, index) =>
    span({
      traceId,
      spanId: randomBytes(8).toString('hex'),
      parentSpanId: '',
      name: `step ${index}`,
      startTimeUnixNano: BigInt(Date.now()) * 1_000_000n,
      endTimeUnixNano: BigInt(Date.now() + 5) * 1_000_000n,
      events: [],
      links: [],
    }),
  );
  return {
    body: gzipSync(toProtobuf(otlpRequest(spans))),
    spanKeys: spans.map((s) => `${s.traceId}:${s.spanId}`),
  };
}

const sendSpans = (body: Buffer) =>
  post('/api/otlp/v1/traces', body, { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' });

const sendTitle = (idempotencyKey: string) =>
  post(
    '/api/inference/failover/v1/titles',
    JSON.stringify({ messages: [{ role: 'user', content: 'How do I reset my password?' }] }),
    {
      'content-type': 'application/json',
      'idempotency-key': idempotencyKey,
    },
  );

/**
 * Runs `workers` loops of `one` until `enough` answers came after `midway` ran (itself called once
 * `before` answers are in), then lets every loop finish the request in hand.
 */
async function underLoad<T>(options: {
  workers: number;
  one: (deadline: number) => Promise<T>;
  before: number;
  midway: () => Promise<void>;
  after: number;
}): Promise<T[]> {
  const answered: T[] = [];
  const deadline = Date.now() + 120_000;
  let afterMidway = -1;
  let midwayDone: Promise<void> | undefined;
  await Promise.all(
    Array.from({ length: options.workers }, async () => {
      while (afterMidway < 0 || answered.length - afterMidway < options.after) {
        answered.push(await options.one(deadline));
        if (!midwayDone && answered.length >= options.before) {
          midwayDone = options.midway().then(() => {
            afterMidway = answered.length;
          });
        }
        if (midwayDone && afterMidway < 0) await midwayDone;
      }
    }),
  );
  return answered;
}

/** The node leading partition 0 of a stream's topic: killing it moves a leader. */
async function leaderOf(stream: StreamName): Promise<KafkaNode> {
  const [metadata] = await withAdmin(
    'orrery-test-failures',
    (admin) => admin.fetchTopicMetadata({ topics: [topics[stream].name] }),
    tenant.config.kafka,
  );
  const leader = metadata?.partitions.find((partition) => partition.partitionId === 0)?.leader;
  const node = tenant.cluster.nodes.find((candidate) => candidate.id === leader);
  if (!node) throw new Error(`no leader for ${stream} partition 0`);
  return node;
}

async function restart(node: KafkaNode): Promise<void> {
  tenant.cluster.startNode(node);
  await eventually(
    async () => ((await tenant.cluster.nodeHealthy(node).catch(() => false)) ? true : undefined),
    90_000,
    `broker ${node.id} back`,
  );
}

// ---- reading the tenant's read models ------------------------------------------------------------

async function rows<T>(query: string): Promise<T[]> {
  const result = await clickhouse.query({ query, format: 'JSONEachRow' });
  return result.json<T>();
}

/** Every consumer group has projected its topic up to the end it has now. */
async function caughtUp(target: { pool: PgPool; groupPrefix: string }): Promise<void> {
  const postgresGroups = new Set([
    'orrery-org-postgres',
    'orrery-person-postgres',
    'orrery-usage-postgres',
    'orrery-sandbox-postgres',
    'orrery-run-postgres',
    'orrery-template-postgres',
  ]);
  const projections = allProjections({ pool: target.pool, clickhouse });
  for (const groupId of consumerGroupIds) {
    const topic = topics[projections[groupId].stream].name;
    const end = await topicEnd(topic, tenant.config.kafka);
    const group = `${target.groupPrefix}${groupId}`;
    await eventually(
      async () => {
        const offsets = postgresGroups.has(groupId)
          ? await storedOffsets(target.pool, group, topic)
          : await withAdmin(
              'orrery-test-failures',
              async (admin) => {
                const [committed] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
                return new Map(
                  (committed?.partitions ?? []).map((p) => [
                    p.partition,
                    BigInt(Math.max(Number(p.offset), 0)),
                  ]),
                );
              },
              tenant.config.kafka,
            );
        return reached(offsets, end) ? true : undefined;
      },
      120_000,
      `${group} at the end of ${topic}`,
    );
  }
}

describe('a broker killed under load', () => {
  it('under OTLP load: every acknowledged span is stored exactly once', async () => {
    const killed = await leaderOf('spans');
    const acknowledged = await underLoad({
      workers: 4,
      one: async (deadline) => {
        const { body, spanKeys } = spansBody(40);
        await untilAnswered(() => sendSpans(body), deadline);
        return spanKeys;
      },
      before: 20,
      midway: async () => {
        log(`killing broker ${killed.id} (leads ${topics.spans.name} partition 0)`);
        tenant.cluster.kill(killed);
      },
      after: 40,
    });
    log(`${acknowledged.length} OTLP requests acknowledged; ${met()}`);
    await restart(killed);
    const expected = acknowledged.flat();
    const stored = await eventually(
      async () => {
        const found = await rows<{ key: string; copies: string }>(
          sql`SELECT concat(lower(hex(trace_id)), ':', lower(hex(span_id))) AS key, count() AS copies FROM spans FINAL
             WHERE org_id = ${orgId} GROUP BY key`.text,
        );
        return found.length >= expected.length ? found : undefined;
      },
      120_000,
      'every acknowledged span in the read model',
    );
    expect(stored.every((row) => Number(row.copies) === 1)).toBe(true);
    expect(new Set(stored.map((row) => row.key))).toEqual(new Set(expected));
    // The admission ledger holds each acknowledged span once too (its key is the span's identity).
    const ledger = await pool.query<{ n: number; distinct: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT (trace_id, span_id))::int AS distinct
         FROM ingest_traces, unnest(span_ids) AS span_id WHERE org_id = $1`,
      [orgId],
    );
    expect(ledger.rows[0]).toEqual({ n: expected.length, distinct: expected.length });
  }, 300_000);

  it('under title load: every answered request is billed exactly once, and nothing else is', async () => {
    const killed = await leaderOf('usage');
    const answered = await underLoad({
      workers: 8,
      one: async (deadline) => {
        // One key for the request and all its retries, as Stripe-style clients do: an attempt
        // whose outcome was unknown (published, but answered 503) is then billed once with them.
        const idempotencyKey = randomUUID();
        const answer = await untilAnswered(() => sendTitle(idempotencyKey), deadline);
        return answer.requestId!;
      },
      before: 100,
      midway: async () => {
        log(`killing broker ${killed.id} (leads ${topics.usage.name} partition 0)`);
        tenant.cluster.kill(killed);
      },
      after: 200,
    });
    log(`${answered.length} title requests answered; ${met()}`);
    await restart(killed);
    expect(new Set(answered).size).toBe(answered.length);
    await caughtUp({ pool, groupPrefix: '' });
    const billed = await pool.query<{ requests: number; input_tokens: number }>(
      'SELECT sum(requests)::int AS requests, sum(input_tokens)::int AS input_tokens FROM usage_daily WHERE org_id = $1',
      [orgId],
    );
    expect(billed.rows[0]).toEqual({
      requests: answered.length,
      input_tokens: answered.length * inputTokens,
    });
    const logged = await rows<{ request_id: string }>(
      sql`SELECT request_id FROM requests FINAL WHERE org_id = ${orgId}`.text,
    );
    expect(logged.map((row) => row.request_id).sort()).toEqual([...answered].sort());
  }, 300_000);
});

describe('no quorum', () => {
  it('answers 503 with Retry-After while two of three brokers are down, and recovers by itself', async () => {
    const [first, second] = tenant.cluster.nodes;
    tenant.cluster.kill(first!);
    tenant.cluster.kill(second!);
    const refusedSpans = await sendSpans(spansBody(3).body);
    const refusedTitle = await sendTitle(randomUUID());
    for (const refused of [refusedSpans, refusedTitle]) {
      expect(refused.status).toBe(503);
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    }
    tenant.cluster.startNode(first!);
    tenant.cluster.startNode(second!);
    // The API was not restarted: the same process answers again once the quorum is back.
    const deadline = Date.now() + 120_000;
    expect((await untilAnswered(() => sendTitle(randomUUID()), deadline)).status).toBe(200);
    expect((await untilAnswered(() => sendSpans(spansBody(3).body), deadline)).status).toBe(200);
  }, 300_000);
});

describe('consumers killed in the middle of batches', () => {
  const cleanPrefix = `clean-${randomUUID().slice(0, 8)}-`;
  let cleanPool: PgPool;
  let cleanClickHouse: ClickHouseClient;
  const clean: RunningConsumer[] = [];

  afterAll(async () => {
    await Promise.all(clean.map((consumer) => consumer.stop()));
    await Promise.all([cleanPool?.end(), cleanClickHouse?.close()]);
  });

  it('leave every read model as a clean run of the same topics makes it', async () => {
    // A backlog while the consumers are down: usage of several orgs, models and days.
    await consumers.stop();
    const run = randomUUID().slice(0, 8);
    const day = Date.now() - 2 * 86_400_000;
    const backlog: UsageRecorded[] = Array.from({ length: 20_000 }, (_, index) => ({
      type: 'UsageRecorded',
      eventId: randomUUID(),
      orgId: `org_backlog_${run}_${index % 7}`,
      occurredAt: new Date(day + (index % 3) * 86_400_000 + index),
      requestId: `req_backlog_${randomUUID()}`,
      keyId: 'key_backlog',
      model: index % 2 === 0 ? 'failover' : 'other',
      endpoint: 'titles',
      inputTokens: 1 + (index % 50),
      outputTokens: 2,
      fallback: index % 11 === 0,
      latencyMs: 3,
    }));
    for (let start = 0; start < backlog.length; start += 500)
      await publishUsage(producer, backlog.slice(start, start + 500));

    // Killed twice while batches are being written: once the first rows of the backlog are in the
    // request log, and again once a third of them are (the Postgres groups are mid-batch then too).
    const logged = async () =>
      Number(
        (
          await rows<{ n: string }>(
            sql`SELECT count() AS n FROM requests WHERE org_id LIKE ${`org_backlog_${run}_%`}`.text,
          )
        )[0]?.n ?? 0,
      );
    for (const progress of [1, backlog.length / 3]) {
      await consumers.start();
      await eventually(
        async () => ((await logged()) >= progress ? true : undefined),
        120_000,
        `${progress} backlog rows projected`,
      );
      await consumers.kill();
      log(`consumers killed with ${await logged()} of ${backlog.length} backlog rows in the request log`);
    }
    await consumers.start();
    await caughtUp({ pool, groupPrefix: '' });

    // The clean run: every projection from the topics' beginning, in groups of its own, into
    // databases of its own, never interrupted; the spans' admission groups' fates read from the
    // ingest ledger, which holds them (consumers/projections.ts).
    const cleanConfig = parseConfig({
      ...process.env,
      ...tenant.environment,
      ORRERY_POSTGRES_URL: tenant.config.postgres.url.replace(`/${tenantName}`, `/${cleanName}`),
      ORRERY_CLICKHOUSE_DATABASE: cleanName,
    });
    await createDatabases(tenant.config, cleanName);
    await migratePostgres(cleanConfig, log);
    cleanClickHouse = createClickHouse({ database: cleanName });
    await migrateClickHouse(cleanClickHouse, log);
    cleanPool = createPgPool(4, cleanConfig.postgres.url);
    for (const projection of Object.values(
      allProjections({ pool: cleanPool, clickhouse: cleanClickHouse, ledger: pool }),
    ))
      clean.push(
        await runConsumer(
          { ...projection, groupId: `${cleanPrefix}${projection.groupId}` },
          { registry: producer.registry, producer, logger, kafka: tenant.config.kafka },
        ),
      );
    await caughtUp({ pool: cleanPool, groupPrefix: cleanPrefix });

    for (const table of postgresReadModels) {
      const [killedRows, cleanRows] = await Promise.all(
        [pool, cleanPool].map((target) => target.query(table.query)),
      );
      expect(killedRows!.rows, table.name).toEqual(cleanRows!.rows);
      // No charges are posted and no sandboxes made here: those two may be empty on both sides.
      if (table.name !== 'charges' && table.name !== 'sandboxes')
        expect(cleanRows!.rows.length, table.name).toBeGreaterThan(0);
    }
    for (const query of clickhouseReadModels) {
      const [killedRows, cleanRows] = await Promise.all(
        [clickhouse, cleanClickHouse].map(async (client) =>
          (await client.query({ query, format: 'JSONEachRow' })).json(),
        ),
      );
      expect(killedRows).toEqual(cleanRows);
      expect(cleanRows!.length).toBeGreaterThan(0);
    }
  }, 600_000);
});

/** Every Postgres projection's table, in a stable order, without columns a projection stamps with its own time. */
const postgresReadModels = [
  { name: 'orgs', query: 'SELECT * FROM orgs ORDER BY org_id' },
  { name: 'api_keys', query: 'SELECT * FROM api_keys ORDER BY key_id' },
  { name: 'credit_grants', query: 'SELECT * FROM credit_grants ORDER BY grant_id' },
  { name: 'charges', query: 'SELECT * FROM charges ORDER BY charge_id' },
  { name: 'usage_daily', query: 'SELECT * FROM usage_daily ORDER BY org_id, model, day' },
  { name: 'usage_counted', query: 'SELECT request_id FROM usage_counted ORDER BY request_id' },
  { name: 'sandboxes', query: 'SELECT * FROM sandboxes ORDER BY sandbox_id' },
];

/** Both ClickHouse read models, collapsed as readers see them. */
const clickhouseReadModels = [
  `SELECT org_id, request_id, occurred_at_ms, key_id, person_id, model, endpoint, input_tokens, output_tokens, fallback,
       latency_ms
     FROM requests FINAL ORDER BY org_id, request_id`,
  `SELECT org_id, lower(hex(trace_id)) AS trace_hex, lower(hex(span_id)) AS span_hex, name, kind, start_time_unix_nano,
       end_time_unix_nano, status_code, size_bytes
     FROM spans FINAL ORDER BY org_id, trace_id, span_id`,
];
