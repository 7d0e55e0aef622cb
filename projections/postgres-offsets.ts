import { inTransaction, type PgClient, type PgPool } from '../platform/postgres.ts';
import type { Delivered } from './projection.ts';

/**
 * Applies a batch to Postgres exactly once, one event at a time: `projectBatchOnce` with `apply`
 * called for each event not applied yet, in delivery order.
 */
export function projectOnce<E>(
  pool: PgPool,
  groupId: string,
  batch: Delivered<E>[],
  apply: (client: PgClient, event: E) => Promise<unknown>,
): Promise<void> {
  return projectBatchOnce(pool, groupId, batch, async (client, events) => {
    for (const event of events) await apply(client, event);
  });
}

/**
 * Applies a batch to Postgres exactly once: in one transaction it reads where this group has got
 * to in each partition, gives `applyAll` the messages past that point (their events, in delivery
 * order; not called when there are none), and moves the offsets. A batch delivered again (the
 * consumer died before committing to Kafka) is recognised and skipped. For set-based writes: one
 * statement for the whole batch instead of one per event.
 */
export async function projectBatchOnce<E>(
  pool: PgPool,
  groupId: string,
  batch: Delivered<E>[],
  applyAll: (client: PgClient, events: E[]) => Promise<unknown>,
): Promise<void> {
  if (batch.length === 0) return;
  await inTransaction(pool, async (client) => {
    const partitions = [...new Set(batch.map((message) => `${message.topic}\u0000${message.partition}`))];
    const stored = new Map<string, bigint>();
    for (const key of partitions) {
      const [topic, partition] = key.split('\u0000') as [string, string];
      const result = await client.query<{ next_offset: string }>(
        `SELECT next_offset::text FROM projection_offsets
          WHERE group_id = $1 AND topic = $2 AND partition = $3 FOR UPDATE`,
        [groupId, topic, Number(partition)],
      );
      stored.set(key, BigInt(result.rows[0]?.next_offset ?? '0'));
    }
    const next = new Map(stored);
    const fresh: E[] = [];
    for (const message of batch) {
      const key = `${message.topic}\u0000${message.partition}`;
      const offset = BigInt(message.offset);
      if (offset < (next.get(key) ?? 0n)) continue;
      fresh.push(message.event);
      next.set(key, offset + 1n);
    }
    if (fresh.length > 0) await applyAll(client, fresh);
    for (const [key, offset] of next) {
      if (offset === stored.get(key)) continue;
      const [topic, partition] = key.split('\u0000') as [string, string];
      await client.query(
        `INSERT INTO projection_offsets (group_id, topic, partition, next_offset) VALUES ($1, $2, $3, $4)
         ON CONFLICT (group_id, topic, partition) DO UPDATE SET next_offset = EXCLUDED.next_offset`,
        [groupId, topic, Number(partition), offset.toString()],
      );
    }
  });
}

/** Where a Postgres projection has got to in a topic: the next offset per partition. */
export async function storedOffsets(
  pool: PgPool,
  groupId: string,
  topic: string,
): Promise<Map<number, bigint>> {
  const result = await pool.query<{ partition: number; next_offset: string }>(
    'SELECT partition, next_offset::text FROM projection_offsets WHERE group_id = $1 AND topic = $2',
    [groupId, topic],
  );
  return new Map(result.rows.map((row) => [row.partition, BigInt(row.next_offset)] as const));
}

/** Whether offsets reach `end` in every partition (a projection holds everything before it). */
export function reached(offsets: ReadonlyMap<number, bigint>, end: ReadonlyMap<number, bigint>): boolean {
  return [...end].every(([partition, high]) => (offsets.get(partition) ?? 0n) >= high);
}
