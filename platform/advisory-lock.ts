import type { PgPool } from './postgres.ts';

// Work that one process at a time does, however many run it (DESIGN.md, "Many machines": jobs in
// any number, one doing each job at a time): a session-level Postgres advisory lock, tried with
// pg_try_advisory_lock on a connection of its own, held while the work runs and released after.
// Nobody waits for it: a caller that finds it held hears so at once, and tries again at its next
// time. The lock is its session's, so it goes with its connection: a process that dies, or whose
// connection breaks, frees the work for another, whose run must then be safe to repeat (every job's
// is). Here rather than in stores/ because it is a use of the client, about no table of ours.

/** Another session holds the lock: the work is under way elsewhere, and did not run here. */
export class LockHeld extends Error {
  constructor(
    readonly lock: string,
    message = `another run holds ${lock}`,
  ) {
    super(message);
    this.name = 'LockHeld';
  }
}

/**
 * Runs `work` holding the advisory lock named `lock`, on a connection of `pool` kept for it until
 * the work has ended; throws LockHeld (saying `heldMessage`, if given) without running it when
 * another session holds the lock.
 */
export function exclusively<T>(
  pool: PgPool,
  lock: string,
  work: () => Promise<T>,
  heldMessage?: string,
): Promise<T> {
  return holding(pool, lock, 'pg_try_advisory_lock', work, heldMessage);
}

/**
 * Runs `work` holding the advisory lock named `lock`, waiting for it while another session holds
 * it: for a claim that is brief and must be made (a sandbox's name across hosts), not a job.
 */
export function inTurn<T>(pool: PgPool, lock: string, work: () => Promise<T>): Promise<T> {
  return holding(pool, lock, 'pg_advisory_lock', work);
}

async function holding<T>(
  pool: PgPool,
  lock: string,
  take: 'pg_try_advisory_lock' | 'pg_advisory_lock',
  work: () => Promise<T>,
  heldMessage?: string,
): Promise<T> {
  const session = await pool.connect();
  let broken: Error | undefined;
  const query = (text: string) =>
    session.query<{ done: boolean | string }>(text, [lock]).catch((error: Error) => {
      broken = error;
      throw error;
    });
  try {
    const taken = await query(`SELECT ${take}(hashtext($1)) AS done`);
    // pg_advisory_lock answers void once it has the lock; only the try may answer false.
    if (taken.rows[0]?.done === false) throw new LockHeld(lock, heldMessage);
    try {
      return await work();
    } finally {
      // The work's outcome stands whatever the unlock does: a failed one breaks the session.
      await query('SELECT pg_advisory_unlock(hashtext($1)) AS done').catch(() => undefined);
    }
  } finally {
    // A broken session is closed rather than pooled, which frees whatever lock it held.
    session.release(broken);
  }
}
