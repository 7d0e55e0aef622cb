// How `span_facts` lies on disk (infra/migrations/clickhouse/0004_span_facts.sql), as pure
// functions: one partition per UTC hour in which traces were first received (`YYYYMMDDHH`), each
// settled once it is one merged part. The analytics read (api/queries/analytics-store.ts) and the
// compaction job (jobs/span-facts-compaction.ts) decide from system.parts which hours hold each span
// once.

const hourMs = 3600 * 1000;

/** The receipt hour of a partition id, as the instants [start, end). */
export function receiptHourRange(partition: string): { start: Date; end: Date } {
  const match = /^(\d{4})(\d{2})(\d{2})(\d{2})$/.exec(partition);
  if (!match) throw new Error(`not a span_facts partition: ${partition}`);
  const start = new Date(
    Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]), Number(match[4])),
  );
  return { start, end: new Date(start.getTime() + hourMs) };
}

/** The UTC day (`YYYYMMDD`) of a receipt hour partition, as `spans` names its partitions. */
export function receiptDay(partition: string): string {
  return partition.slice(0, 8);
}

/** An active part of `span_facts`, as system.parts lists it. */
export interface FactsPart {
  partition: string;
  name: string;
  /** 0 for a part written by an insert; above 0 for a merge's result. */
  level: number;
}

/**
 * The receipt hours that hold each span once: those whose one part was made by a merge, which
 * keeps one row per span. An hour with several parts, or with only an insert's part (which keeps
 * every row it was given), is unsettled. `settled` maps each settled hour to its part.
 */
export function settledHours(parts: readonly FactsPart[]): {
  settled: Map<string, string>;
  unsettled: string[];
} {
  const byHour = new Map<string, FactsPart[]>();
  for (const part of parts) byHour.set(part.partition, [...(byHour.get(part.partition) ?? []), part]);
  const settled = new Map<string, string>();
  const unsettled: string[] = [];
  for (const [hour, hourParts] of byHour) {
    const [only, ...others] = hourParts;
    if (only && others.length === 0 && only.level > 0) settled.set(hour, only.name);
    else unsettled.push(hour);
  }
  return { settled, unsettled: unsettled.sort() };
}

/**
 * Whether a read that took `plan`'s unsettled hours with FINAL and every other hour as stored,
 * between two listings of the parts, read each span once: every hour it read as stored had, before
 * and after, the same one merged part. (A part that arrived, merged or was rewritten by a mutation
 * in between has another name.)
 */
export function readAsPlanned(
  plan: { settled: Map<string, string>; unsettled: readonly string[] },
  after: readonly FactsPart[],
): boolean {
  const unsettled = new Set(plan.unsettled);
  const now = settledHours(after);
  return [...new Set(after.map((part) => part.partition))]
    .filter((hour) => !unsettled.has(hour))
    .every((hour) => now.settled.get(hour) !== undefined && now.settled.get(hour) === plan.settled.get(hour));
}

export interface PartitionParts {
  partition: string;
  parts: number;
  minLevel: number;
  /** When its newest part was written. */
  newestAt: Date;
  /** When its oldest part that no merge has made was written; undefined when it has none. */
  oldestInsertAt: Date | undefined;
}

export interface CompactionPolicy {
  /** An hour that has had no new part for this long is merged into one. */
  quietMs: number;
  /** An hour still receiving parts is merged once its oldest unmerged part is this old. */
  maxUnsettledMs: number;
}

export const defaultCompactionPolicy: CompactionPolicy = { quietMs: 60_000, maxUnsettledMs: 10 * 60_000 };

/**
 * The partitions to merge into one part now: those not yet one merged part that are either quiet
 * or unsettled for too long. Oldest first.
 */
export function partitionsToCompact(
  partitions: readonly PartitionParts[],
  now: Date,
  policy: CompactionPolicy = defaultCompactionPolicy,
): string[] {
  const age = (time: Date) => now.getTime() - time.getTime();
  return partitions
    .filter((partition) => partition.parts > 1 || partition.minLevel === 0)
    .filter(
      (partition) =>
        age(partition.newestAt) >= policy.quietMs ||
        (partition.oldestInsertAt !== undefined && age(partition.oldestInsertAt) >= policy.maxUnsettledMs),
    )
    .map((partition) => partition.partition)
    .sort();
}
