import pg from 'pg';
import type { PgPool } from './postgres.ts';

// Work that one process at a time does, however many run it (DESIGN.md, "Many machines": jobs in
// any number, one doing each job at a time): a session-level Postgres advisory lock, tried with
// pg_try_advisory_lock on a connection of its own, held while the work runs and released after.
// Nobody waits for it: a caller that finds it held hears so at once, and tries again at its next
// time. The lock is its session's, so it goes with its connection: a process that dies, or whose
// connection breaks, frees the work for another, whose run must then be safe to repeat (every job's
// is). Here rather than in stores/ because it is a use of the client, about no table of ours.
// Below, the same lock held for a process's life: its presence, which others can look up.

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

/**
 * Presence locks are keyed (this number, hashtext(name)): the two-key form, which shows in pg_locks
 * as classid and objid (objsubid 2), apart from the one-key locks above (objsubid 1).
 */
const presenceKeySpace = 0x6f727279; // 'orry'

/**
 * A name's presence (an API process's, as an admission lease holder): its advisory lock, held by a
 * connection of its own for as long as the one named lives. Postgres drops the lock the moment
 * that connection ends, so others see at once that the one named died (or was cut off), without
 * waiting for anything to expire. Made on first use and again after the connection was lost.
 */
export class Presence {
  private session: Promise<pg.Client> | undefined;
  private closed = false;

  constructor(
    private readonly settings: pg.ClientConfig,
    readonly name: string,
  ) {}

  /** Resolves once the name is present; rejects if Postgres cannot be reached. */
  ensure(): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error(`${this.name} has stopped`));
    if (!this.session) {
      const client = new pg.Client({ ...this.settings, application_name: `${this.name}-presence` });
      const session = (async () => {
        await client.connect();
        const locked = await client.query<{ locked: boolean }>(
          'SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked',
          [presenceKeySpace, this.name],
        );
        // Only another session of the same name (one the server has not yet seen end) has it.
        if (!locked.rows[0]?.locked) throw new Error(`${this.name}'s presence is held by another session`);
        return client;
      })();
      const lost = () => {
        if (this.session === session) this.session = undefined;
        void client.end().catch(() => undefined);
      };
      client.on('error', lost);
      client.on('end', lost);
      session.catch(lost);
      this.session = session;
    }
    return this.session;
  }

  /** Ends the presence: from now on the name shows as gone. */
  async close(): Promise<void> {
    this.closed = true;
    const session = this.session;
    this.session = undefined;
    await session?.then((client) => client.end()).catch(() => undefined);
  }
}

/** SQL: whether the name (an SQL expression of type text) keeps its presence in this database. */
export const presentSql = (name: string) =>
  `EXISTS (SELECT 1 FROM pg_locks
            WHERE locktype = 'advisory' AND objsubid = 2 AND granted
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND classid = ${presenceKeySpace} AND objid = hashtext(${name})::oid)`;
