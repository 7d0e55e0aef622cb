// What /readyz answers (observability.ts): each dependency's state, and whether the process
// should be sent traffic. A process is ready only when every check is; an unreachable dependency
// says more than "starting", so it wins the summary.

import { createClickHouse } from './clickhouse.ts';
import {
  type DependencyCheck,
  DependencyWatch,
  defaultWatchTimings,
  type WatchTimings,
} from './dependency-watch.ts';
import { createPgPool, type PgPool } from './postgres.ts';

export type KeysCheck = 'caught_up' | 'starting';
export type ReadinessStatus = 'ready' | 'not_ready' | 'starting';

export interface Readiness {
  status: ReadinessStatus;
  checks: Readonly<Record<string, KeysCheck | DependencyCheck>>;
}

/** The API's checks: the org stream read to its end, and Postgres and Kafka answering. */
export interface ApiChecks {
  keys: KeysCheck;
  postgres: DependencyCheck;
  kafka: DependencyCheck;
}

export function apiReadiness(checks: ApiChecks): Readiness {
  return readinessOf({ ...checks });
}

/** Not ready while any dependency is unreachable, starting while anything starts, else ready. */
export function readinessOf(checks: Record<string, KeysCheck | DependencyCheck>): Readiness {
  const values = Object.values(checks);
  const status = values.includes('unreachable')
    ? 'not_ready'
    : values.includes('starting')
      ? 'starting'
      : 'ready';
  return { status, checks: { ...checks } };
}

/** The stores a process uses, each watched under its own name. */
export interface Stores {
  postgres: PgPool;
  /** The ClickHouse server, probed on a connection of the watch's own. */
  clickhouse: { url: string };
  /** The process's producer (producers/producer.ts), asked whether its brokers answer. */
  kafka: { reachable(timeoutMs: number): Promise<boolean> };
}

/**
 * A watch of the stores given: a `SELECT 1` and ClickHouse's `/ping`, each on a connection of
 * its own, and a metadata request over the producer's connections, each bounded
 * (platform/dependency-watch.ts). The probes do not queue behind the stores' requests: with every
 * connection of the pool busy (waiting on Kafka, say) the Postgres probe said Postgres was away
 * when it was not, and long analytics queries would do the same to ClickHouse's.
 */
export function storeWatch<Name extends keyof Stores>(
  stores: Pick<Stores, Name>,
  timings: WatchTimings = defaultWatchTimings,
): DependencyWatch<Name> {
  const all = stores as Partial<Stores>;
  const probePool = all.postgres && createPgPool(1, all.postgres.options.connectionString);
  const probeClickHouse = all.clickhouse && createClickHouse({ url: all.clickhouse.url, connections: 1 });
  const probes: Record<keyof Stores, (() => Promise<boolean>) | undefined> = {
    postgres: probePool && (async () => (await probePool.query('SELECT 1')).rowCount === 1),
    clickhouse: probeClickHouse && (async () => (await probeClickHouse.ping()).success),
    kafka: all.kafka && (() => all.kafka!.reachable(timings.timeoutMs)),
  };
  const watched = Object.fromEntries(
    (Object.keys(stores) as Name[]).map((name) => [name, probes[name]!]),
  ) as Record<Name, () => Promise<boolean>>;
  return new DependencyWatch(watched, timings, () =>
    Promise.all([probePool?.end(), probeClickHouse?.close()]),
  );
}

/**
 * /readyz for a process whose work is its own (the consumers, the jobs): each store's last
 * answer, and `started` until the process has started its work.
 */
export function watchedReadiness<Name extends keyof Stores>(
  watch: DependencyWatch<Name>,
  names: readonly Name[],
  started: () => boolean = () => true,
): () => Promise<Readiness> {
  return async () =>
    readinessOf({
      ...(started() ? {} : { work: 'starting' as const }),
      ...Object.fromEntries(names.map((name) => [name, watch.check(name)])),
    });
}
