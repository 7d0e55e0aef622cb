// What /readyz answers (api/observability.ts): each dependency's state, and whether the process
// should be sent traffic. A process is ready only when every check is; an unreachable dependency
// says more than "starting", so it wins the summary.

import type { DependencyCheck } from '../platform/dependency-watch.ts';

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
  return { status: statusOf(checks), checks: { ...checks } };
}

function statusOf(checks: ApiChecks): ReadinessStatus {
  if (checks.postgres === 'unreachable' || checks.kafka === 'unreachable') return 'not_ready';
  return checks.keys === 'starting' ? 'starting' : 'ready';
}

/** For a process whose readiness is one flag (the consumers, the jobs): no dependency listed. */
export function readyWhen(ready: () => boolean): () => Promise<Readiness> {
  return async () => ({ status: ready() ? 'ready' : 'starting', checks: {} });
}
