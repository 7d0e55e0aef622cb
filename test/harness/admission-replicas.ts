import { randomUUID } from 'node:crypto';
import { AdmissionQueue } from '../../api/otlp/admission-queue.ts';
import { pendingSpans } from '../../api/otlp/ingest.ts';
import type { AdmissionLimits } from '../../domain/tracing/admission.ts';
import { limits } from '../../domain/tracing/limits.ts';
import { createPgPool, type PgPool } from '../../platform/postgres.ts';
import type { EventProducer } from '../../producers/producer.ts';
import { AdmissionLeases, type Lease } from '../../stores/admission-lease.ts';
import { request } from './otlp-fixtures.ts';
import { llmSpan } from './tracing.ts';

// API replicas' worth of OTLP admission in this process, each with the pools, admission queue and
// lease holder an API process has (api/app.ts), all sending one org's spans under steady load: the
// lease fairness test (test/int/otlp/admission-fairness.int.test.ts) and its benchmark
// (bench/lease-fairness.ts) read what each replica got through and how long it waited for the
// org's lease.

/** What one replica got through, and how long it waited for the org's lease. */
export interface ReplicaFigures {
  readonly holder: string;
  /** Groups admitted (each published its accepted spans once). */
  groups: number;
  /** Requests answered with a verdict, and those that failed (a lease not had in time, say). */
  answered: number;
  failed: number;
  /** Each take of the lease (acquire, however many tries), in ms, from the call to its outcome. */
  readonly leaseWaits: number[];
  /** Statements this replica sent about the lease alone (takes, tries, give-backs). */
  leaseStatements: number;
  /** The first failure's message, if any. */
  firstFailure?: string;
}

export interface ReplicasLoad {
  producer: EventProducer;
  orgId: string;
  replicas: number;
  /** Exporters per replica, each sending its next request once the last is answered. */
  exporters: number;
  spansPerRequest: number;
  seconds: number;
  /** How long a group may wait for the lease (IngestDeps.leaseWaitMs), and the lease's lifetime. */
  leaseWaitMs: number;
  leaseTtlMs: number;
  /** The admission limits every replica holds the org to; the spec's by default. */
  limits?: AdmissionLimits;
}

/** A lease holder that times each take of the lease. */
class TimedLeases extends AdmissionLeases {
  constructor(
    pool: PgPool,
    ttlMs: number,
    private readonly figures: ReplicaFigures,
  ) {
    super(pool, ttlMs, figures.holder);
  }

  override async acquire(orgId: string, waitMs: number): Promise<Lease> {
    const started = performance.now();
    try {
      return await super.acquire(orgId, waitMs);
    } finally {
      this.figures.leaseWaits.push(performance.now() - started);
    }
  }
}

/**
 * A pool that counts the statements it sends about the lease alone (AdmissionLeases' own, named
 * `admission-lease-…`), not the ledger's, which renew the lease or say it is wanted on their way.
 */
function countingLeaseStatements(pool: PgPool, figures: ReplicaFigures): PgPool {
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  const counted = (...args: unknown[]) => {
    const [statement] = args;
    if ((statement as { name?: string }).name?.startsWith('admission-lease')) figures.leaseStatements += 1;
    return query(...args);
  };
  Object.assign(pool, { query: counted });
  return pool;
}

/** Runs the replicas for `seconds` and returns each one's figures, waits sorted. */
export async function loadReplicas(load: ReplicasLoad): Promise<ReplicaFigures[]> {
  const replicas = Array.from({ length: load.replicas }, () => {
    const figures: ReplicaFigures = {
      holder: `replica-${randomUUID()}`,
      groups: 0,
      answered: 0,
      failed: 0,
      leaseWaits: [],
      leaseStatements: 0,
    };
    // As an API process has them: a pool for reads and the lease, one for the ledger's records.
    const pool = countingLeaseStatements(createPgPool(4), figures);
    const recordPool = createPgPool(4);
    const producer: EventProducer = {
      ...load.producer,
      sendFramed: (...args) => {
        figures.groups += 1;
        return load.producer.sendFramed(...args);
      },
    };
    const queue = new AdmissionQueue({
      pool,
      recordPool,
      producer,
      leases: new TimedLeases(pool, load.leaseTtlMs, figures),
      leaseWaitMs: load.leaseWaitMs,
      limits: load.limits ?? limits,
    });
    return { figures, pool, recordPool, queue };
  });
  const stopAt = performance.now() + load.seconds * 1000;
  const exporter = async ({ figures, queue }: (typeof replicas)[number]) => {
    while (performance.now() < stopAt) {
      const spans = Array.from({ length: load.spansPerRequest }, () => llmSpan());
      try {
        await queue.admit(load.orgId, pendingSpans(request(spans)));
        figures.answered += 1;
      } catch (error) {
        figures.failed += 1;
        figures.firstFailure ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  try {
    await Promise.all(
      replicas.flatMap((replica) => Array.from({ length: load.exporters }, () => exporter(replica))),
    );
  } finally {
    for (const { queue } of replicas) await queue.close();
    await Promise.all(replicas.flatMap(({ pool, recordPool }) => [pool.end(), recordPool.end()]));
  }
  return replicas.map(({ figures }) => {
    figures.leaseWaits.sort((a, b) => a - b);
    return figures;
  });
}

/** The p-th percentile of sorted figures (NaN when there are none). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** One line of a replica's figures, as the test's messages and the benchmark print them. */
export function replicaLine(figures: ReplicaFigures, index: number): string {
  const waits = figures.leaseWaits;
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  return (
    `replica ${index + 1}: ${figures.groups} groups, ${figures.answered} requests answered, ${figures.failed} failed; ` +
    `${waits.length} lease takes, wait p50 ${ms(percentile(waits, 50))}, p99 ${ms(percentile(waits, 99))}, ` +
    `max ${ms(waits.at(-1) ?? Number.NaN)}; ${figures.leaseStatements} lease statements` +
    (figures.firstFailure ? ` (first failure: ${figures.firstFailure})` : '')
  );
}
