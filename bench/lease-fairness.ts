// How the org's admission lease is shared by API replicas serving one org under steady load (issue
// 47): each replica's groups and requests, its waits for the lease (p50, p99, max) and the
// statements it sent about the lease alone. The replicas are in this process, each an admission
// queue with its own pools and lease holder as an API process has them (test/harness/
// admission-replicas.ts, which the fairness test runs too), against the local stack's Postgres and
// Kafka. With --replicas 1 it shows what a group pays for the lease when one process serves the org.
//   npx tsx bench/lease-fairness.ts [--seconds 10] [--replicas 2] [--exporters 4] [--spans 50]
import { parseArgs } from 'node:util';
import { config } from '../platform/config.ts';
import { createEventProducer } from '../producers/producer.ts';
import { loadReplicas, replicaLine } from '../test/harness/admission-replicas.ts';
import { machineLine } from './machine.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    replicas: { type: 'string', default: '2' },
    exporters: { type: 'string', default: '4' },
    spans: { type: 'string', default: '50' },
  },
});
const seconds = Number(values.seconds);
const replicaCount = Number(values.replicas);
const exporters = Number(values.exporters);
const spansPerRequest = Number(values.spans);
for (const [name, value] of Object.entries({
  seconds,
  replicas: replicaCount,
  exporters,
  spans: spansPerRequest,
}))
  if (!(Number.isInteger(value) && value >= 1)) throw new Error(`use --${name} N, a whole number above 0`);

// As the API sets them (api/app.ts): a group waits for the lease as long as a caller for Kafka.
const { callerMs } = config().kafka.timeouts;
const producer = await createEventProducer('orrery-bench-lease');
try {
  const orgId = `org_bench_lease_${Date.now()}`;
  const replicas = await loadReplicas({
    producer,
    orgId,
    replicas: replicaCount,
    exporters,
    spansPerRequest,
    seconds,
    leaseWaitMs: callerMs,
    leaseTtlMs: callerMs + 5_000,
  });
  const groups = replicas.reduce((sum, replica) => sum + replica.groups, 0);
  const answered = replicas.reduce((sum, replica) => sum + replica.answered, 0);
  const statements = replicas.reduce((sum, replica) => sum + replica.leaseStatements, 0);
  console.log(machineLine());
  console.log(
    `lease fairness: ${seconds} s, ${replicaCount} replica(s) of ${exporters} exporters each, one org, ${spansPerRequest} spans a request, lease wait ${callerMs} ms`,
  );
  replicas.forEach((replica, index) => {
    console.log(`  ${replicaLine(replica, index)}`);
  });
  console.log(
    `  all: ${groups} groups (${(groups / seconds).toFixed(0)}/s), ${answered} requests (${((answered * spansPerRequest) / seconds).toFixed(0)} spans/s), ${(statements / Math.max(1, groups)).toFixed(2)} lease statements a group`,
  );
} finally {
  await producer.disconnect();
}
