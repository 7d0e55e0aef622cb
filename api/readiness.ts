// What /readyz answers (api/observability.ts): each dependency's state, and whether the process
// should be sent traffic. A process is ready only when every check is; an unreachable dependency
// says more than "starting", so it wins the summary.

export type KeysCheck = 'caught_up' | 'starting';
export type DependencyCheck = 'ok' | 'unreachable';
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

/** `probe` answered true within `timeoutMs`; a probe that throws or is late is `unreachable`. */
export async function probeWithin(
  probe: () => Promise<boolean>,
  timeoutMs: number,
): Promise<DependencyCheck> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    const answered = await Promise.race([probe().catch(() => false), late]);
    return answered ? 'ok' : 'unreachable';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The same answer for `ttlMs` after a probe started, so a load balancer polling /readyz (or many
 * of them) costs Postgres and Kafka one probe a second, not one per poll.
 */
export function cachedFor<T>(ttlMs: number, probe: () => Promise<T>, now: () => number = Date.now) {
  let last: { at: number; answer: Promise<T> } | undefined;
  return (): Promise<T> => {
    const at = now();
    if (!last || at - last.at >= ttlMs) last = { at, answer: probe() };
    return last.answer;
  };
}
