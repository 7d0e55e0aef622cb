import { logger } from '../platform/logger.ts';
import { poll } from '../platform/poll.ts';
import type { SpanRecord } from './spans-rowbinary.ts';

// The spans' projection applies a group's spans only once its admission group is kept (issue 49,
// item 1; stores/admission-groups.ts says why): spans Kafka took for a request answered 503 never
// reach a read model. A group is decided by the API's commit, normally within milliseconds of
// its events, which the projection may see first: it asks again until every group of the batch is
// decided, and decides one dropped once it has waited longer than any commit of it can take.

/** The admission groups' fates as the projection reads and settles them (stores/admission-groups.ts). */
export interface AdmissionFates {
  /** Whether each decided group was kept (true) or dropped (false); undecided ones are absent. */
  read(groupIds: readonly string[]): Promise<Map<string, boolean>>;
  /** Decides the undecided ones among the groups dropped. */
  dropUndecided(groupIds: readonly string[]): Promise<void>;
}

/**
 * How long the projection waits for an undecided group before it decides it dropped, counted from
 * when it first saw the group's events (so the API's publish is done), on its own clock (so no
 * clock between machines is trusted). The API's statements, its wait for Kafka and its connections
 * are bounded (a few seconds in all), and Postgres ends a transaction left idle for 10 s
 * (platform/postgres.ts): a group undecided this long is one whose commit can no longer come, or
 * one whose API process stalls, whose commit then fails on the row this decides.
 */
export const undecidedForMs = 30_000;

type Delivered = { event: SpanRecord };

/** The batch without the spans of groups that were not kept; waits until each group is decided. */
export async function keptOnly<T extends Delivered>(
  batch: readonly T[],
  fates: AdmissionFates,
  now: () => number = Date.now,
): Promise<T[]> {
  const groups = new Set<string>();
  for (const { event } of batch)
    if (event.type === 'SpansReceived' && event.admissionId) groups.add(event.admissionId);
  if (groups.size === 0) return [...batch];
  const firstSeen = now();
  const decided = new Map<string, boolean>();
  const undecided = () => [...groups].filter((id) => !decided.has(id));
  await poll(
    async () => {
      for (const [id, kept] of await fates.read(undecided())) decided.set(id, kept);
      if (undecided().length > 0 && now() - firstSeen >= undecidedForMs) {
        const late = undecided();
        await fates.dropUndecided(late);
        for (const [id, kept] of await fates.read(late)) decided.set(id, kept);
      }
      return undecided().length === 0;
    },
    // Until no commit of an undecided group can come any more, and once more then.
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

/** Groups still undecided after the wait (a clock that jumped, a fate forgotten meanwhile): retried. */
export class AdmissionUndecided extends Error {
  constructor(groupIds: readonly string[]) {
    super(`admission groups not yet decided: ${groupIds.join(', ')}`);
    this.name = 'AdmissionUndecided';
  }
}
