import { AdmissionQueue } from '../../api/otlp/admission-queue.ts';
import type { IngestDeps } from '../../api/otlp/ingest.ts';
import { limits } from '../../domain/tracing/limits.ts';
import type { PgPool } from '../../platform/postgres.ts';
import type { EventProducer } from '../../producers/producer.ts';
import { AdmissionLeases } from '../../stores/admission-lease.ts';

/** An admission queue on the test platform's Postgres and Kafka, as the API makes one, but for `deps`. */
export function testAdmissionQueue(
  platform: { pool: PgPool; producer: EventProducer },
  deps: Partial<IngestDeps> = {},
): AdmissionQueue {
  return new AdmissionQueue({
    pool: platform.pool,
    recordPool: platform.pool,
    producer: platform.producer,
    leases: new AdmissionLeases(platform.pool, 30_000),
    leaseWaitMs: 5_000,
    limits,
    ...deps,
  });
}
