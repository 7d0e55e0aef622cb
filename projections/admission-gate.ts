import { logger } from '../platform/logger.ts';
import { poll } from '../platform/poll.ts';
import type { SpanRecord } from './spans-rowbinary.ts';

// The spans' projection applies a group's spans only once its admission group is kept (issue 49,
// item 1; stores/admission-groups.ts says why): spans Kafka took for a request answered 503 never
// reach a read model. A group is decided by the API's commit, normally within milliseconds of
// its events, which the projection may see first: it asks again until every group of the batch is
// decided, and decides one dropped once its events are older than any commit of theirs can come.

/** The admission groups' fates as the projection reads and settles them (stores/admission-groups.ts). */
export interface AdmissionFates {
  /** Whether each decided group was kept (true) or dropped (false); undecided ones are absent. */
  read(groupIds: readonly string[]): Promise<Map<string, boolean>>;
  /** Decides the undecided ones among the groups dropped. */
  dropUndecided(groupIds: readonly string[]): Promise<void>;
}

/**
 * How long after its admission a group may still be kept. The API's statements, its wait for
 * Kafka and its connections are bounded (a few seconds in all), and Postgres ends a transaction
 * left idle for 10 s (platform/postgres.ts): a group undecided this long after its events were
 * made is one whose commit can no longer come, or one whose API process stalls, whose commit then
 * fails on the row this decides. The time is the API's clock against this process's.
 */
export const undecidedForMs = 30_000;

type Delivered = { event: SpanRecord };

/** The batch without the spans of groups that were not kept; waits until each group is decided. */
export async function keptOnly<T extends Delivered>(
  batch: readonly T[],
  fates: AdmissionFates,
  now: () => number = Date.now,
): Promise<T[]> {
  const madeAt = new Map<string, number>();
  for (const { event } of batch)
    if (event.type === 'SpansReceived' && event.admissionId)
      madeAt.set(event.admissionId, Math.min(madeAt.get(event.admissionId) ?? Infinity, event.occurredAtMs));
  if (madeAt.size === 0) return [...batch];
  const decided = new Map<string, boolean>();
  const undecided = () => [...madeAt.keys()].filter((id) => !decided.has(id));
  await poll(
    async () => {
      for (const [id, kept] of await fates.read(undecided())) decided.set(id, kept);
      const late = undecided().filter((id) => now() - madeAt.get(id)! >= undecidedForMs);
      if (late.length > 0) {
        await fates.dropUndecided(late);
        for (const [id, kept] of await fates.read(late)) decided.set(id, kept);
      }
      return undecided().length === 0;
    },
    // Until the oldest undecided group's commit can no longer come, and once more then.
    { timeoutMs: undecidedForMs + 1_000, intervalMs: 10, maxIntervalMs: 1_000 },
  );
  if (undecided().length > 0) throw new AdmissionUndecided(undecided());
  const dropped = [...decided].filter(([, kept]) => !kept).map(([id]) => id);
  if (dropped.length > 0)
    logger.info({ groups: dropped }, 'spans of admission groups answered 503 left out of the read models');
  return batch.filter(
    ({ event }) => event.type !== 'SpansReceived' || !event.admissionId || decided.get(event.admissionId),
  );
}

/** Groups made, by the API's clock, later than this process's clock allows deciding them: retried. */
export class AdmissionUndecided extends Error {
  constructor(groupIds: readonly string[]) {
    super(`admission groups not yet decided: ${groupIds.join(', ')}`);
    this.name = 'AdmissionUndecided';
  }
}
