import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pendingSpans } from '../../../api/otlp/ingest.ts';
import { createPgPool, type PgClient, type PgPool } from '../../../platform/postgres.ts';
import type { EventProducer } from '../../../producers/producer.ts';
import { testAdmissionQueue } from '../../harness/admission-queue.ts';
import { ledgerSpans, spanKey, storedOffsets } from '../../harness/admission-records.ts';
import { request } from '../../harness/otlp-fixtures.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { llmSpan } from '../../harness/tracing.ts';

// A 503 means nothing was stored, whichever step of the path Postgres is lost at (issue 49, item
// 1): the server ends the admission's own session (pg_terminate_backend, as a crash or a cut
// network ends it) exactly at one step of a group's path: its ledger read, its record statement
// while Kafka takes the spans, its commit after Kafka acknowledged them, or just after that
// commit. Several exporters send at once, each resending what was answered 503 as an exporter
// does; every answer is then checked against what Kafka was given, the spans read model and the
// ledger. Kafka's side (taken, acknowledgement lost) is admission-truth.int.test.ts's.

type Step =
  | 'the ledger read'
  | 'the record, Kafka still taking the spans'
  | 'the commit'
  | 'after the commit';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform.stop());

/**
 * Ends the session's backend from another session, and waits until the server has ended it;
 * `seenByClient`, also until the client has read its end, as an idle client would have long before
 * its next query (its pool then drops it when it is released rather than hand it out again).
 */
async function loseSession(client: PgClient, { seenByClient = false } = {}): Promise<void> {
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const pid = rows[0]!.pid;
  const clientEnded = new Promise<void>((resolve) => client.once('end', () => resolve()));
  await platform.pool.query('SELECT pg_terminate_backend($1)', [pid]);
  if (seenByClient) await clientEnded;
  await eventually(
    async () =>
      (await platform.pool.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 0
        ? true
        : undefined,
    10_000,
    `session ${pid} ended`,
  );
}

/**
 * A pool of the admission's own whose session the server ends at `step` of the first group that
 * reaches it, once; `lost()` says whether it has, `commits()` how many records were committed.
 */
function poolLosingItsSessionAt(step: Step): { pool: PgPool; lost: () => boolean; commits: () => number } {
  const real = createPgPool(4);
  let armed = true;
  let commits = 0;
  const fire = () => {
    const now = armed;
    armed = false;
    return now;
  };
  const statementName = (args: unknown[]) => (args[0] as { name?: string } | undefined)?.name;
  const statementText = (args: unknown[]) =>
    typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;

  const faultyClient = (client: PgClient): PgClient =>
    new Proxy(client, {
      get(target, property) {
        if (property !== 'query') return Reflect.get(target, property, target);
        return async (...args: unknown[]) => {
          const query = () => (target.query as (...a: unknown[]) => Promise<unknown>)(...args);
          const isRecord = statementName(args) === 'ingest-ledger-record';
          const isCommit = statementText(args) === 'COMMIT';
          if (step === 'the record, Kafka still taking the spans' && isRecord && fire())
            await loseSession(target);
          if (step === 'the commit' && isCommit && fire()) await loseSession(target);
          const answer = await query();
          if (isCommit) commits += 1;
          if (step === 'after the commit' && isCommit && fire())
            await loseSession(target, { seenByClient: true });
          return answer;
        };
      },
    });

  const pool = new Proxy(real, {
    get(target, property) {
      if (property === 'connect') return async () => faultyClient(await target.connect());
      if (property === 'query')
        return async (...args: unknown[]) => {
          if (step === 'the ledger read' && statementName(args) === 'ingest-ledger-read' && fire()) {
            const client = await target.connect();
            try {
              await loseSession(client);
              return await (client.query as (...a: unknown[]) => Promise<unknown>)(...args);
            } finally {
              client.release(true);
            }
          }
          return (target.query as (...a: unknown[]) => Promise<unknown>)(...args);
        };
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { pool, lost: () => !armed, commits: () => commits };
}

/** The platform's producer, counting the span groups Kafka acknowledged (it changes nothing). */
function countingProducer(): { producer: EventProducer; acknowledged: () => number } {
  let acknowledged = 0;
  const producer: EventProducer = {
    ...platform.producer,
    sendFramed: async (stream, messages, options) => {
      await platform.producer.sendFramed(stream, messages, options);
      acknowledged += 1;
    },
  };
  return { producer, acknowledged: () => acknowledged };
}

const exporters = 4;
const spansPerExport = 3;

const steps: { step: Step; refused: boolean; reachesKafka: boolean }[] = [
  { step: 'the ledger read', refused: true, reachesKafka: false },
  { step: 'the record, Kafka still taking the spans', refused: true, reachesKafka: true },
  { step: 'the commit', refused: true, reachesKafka: true },
  { step: 'after the commit', refused: false, reachesKafka: true },
];

describe('Postgres lost at one step of a group', () => {
  it.each(steps)(
    'at $step: every answer true, every span stored and counted once',
    async ({ step, refused, reachesKafka }) => {
      const faulty = poolLosingItsSessionAt(step);
      const { producer, acknowledged } = countingProducer();
      const queue = testAdmissionQueue(platform, { pool: faulty.pool, recordPool: faulty.pool, producer });
      const orgId = `org_steps_${randomUUID()}`;
      const exports = Array.from({ length: exporters }, () =>
        Array.from({ length: spansPerExport }, () => llmSpan()),
      );
      const answers: { exporter: number; status: 200 | 503 }[] = [];
      // Each exporter sends its spans until answered 200, the same body each time.
      await Promise.all(
        exports.map(async (spans, exporter) => {
          for (let attempt = 1; ; attempt++) {
            try {
              const admission = await queue.admit(orgId, pendingSpans(request(spans)));
              expect(admission.acceptedSpans).toBe(spansPerExport);
              answers.push({ exporter, status: 200 });
              return;
            } catch (error) {
              answers.push({ exporter, status: 503 });
              if (attempt === 5) throw error;
            }
          }
        }),
      );
      expect(faulty.lost()).toBe(true);
      const refusals = answers.filter((answer) => answer.status === 503).length;
      if (refused) expect(refusals).toBeGreaterThan(0);
      else expect(refusals).toBe(0);
      // Kafka took every committed group's spans, and, where the step comes after the publish, the
      // spans of the group answered 503 too: those are in Kafka and must not be stored.
      expect(acknowledged()).toBe(faulty.commits() + (reachesKafka && refused ? 1 : 0));

      const everySpan = exports.flat().map(spanKey).sort();
      // Each span stored from one message only: the copy of a group answered 503 was left out.
      const offsetsBySpan = await storedOffsets(platform.clickhouse, orgId, everySpan);
      expect([...offsetsBySpan.keys()].sort()).toEqual(everySpan);
      expect([...offsetsBySpan.values()].filter((offsets) => offsets.size !== 1)).toEqual([]);
      expect(await ledgerSpans(platform.pool, orgId)).toEqual({
        traces: everySpan.length,
        month: everySpan.length,
      });
      await queue.close();
      await faulty.pool.end();
    },
  );
});
