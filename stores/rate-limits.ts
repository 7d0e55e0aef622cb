import type { PgPool } from '../platform/postgres.ts';

// Attempts counted against a limit, shared by every API replica (migration 1700000016000): one
// row per key, a fixed window that starts with its first attempt. Counting is one statement, so
// two replicas counting the same key at once each see the other's attempt; every time is the
// database's, so replicas whose clocks disagree still agree on when a window ends.

export interface CountedAttempt {
  /** Attempts in the window, this one included. */
  count: number;
  /** Until the window ends, in milliseconds (0 when it ends now). */
  msLeft: number;
}

export interface AttemptWindow {
  windowMs: number;
  /**
   * Past this many attempts each further one starts the window afresh (@fastify/rate-limit's
   * `continueExceeding`), so a caller who keeps trying stays refused; undefined: the window
   * ends when it ends, whatever is tried meanwhile.
   */
  restartPast?: number;
}

interface CountRow {
  count: number;
  ms_left: number;
}

/**
 * Counts one attempt under `key`: a new window if there is none or it has ended, else one more in
 * the current one. $3 is null unless attempts past a count restart the window.
 */
const countAttemptSql = `
  INSERT INTO rate_limits AS limited (key, count, window_ends_at)
  VALUES ($1, 1, now() + $2::integer * interval '1 millisecond')
  ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN limited.window_ends_at <= now() THEN 1 ELSE limited.count + 1 END,
    window_ends_at = CASE
      WHEN limited.window_ends_at <= now() OR limited.count + 1 > $3::integer THEN excluded.window_ends_at
      ELSE limited.window_ends_at
    END
  RETURNING count,
    greatest(0, ceil(extract(epoch FROM window_ends_at - now()) * 1000))::integer AS ms_left`;

export async function countAttempt(
  pool: PgPool,
  key: string,
  window: AttemptWindow,
): Promise<CountedAttempt> {
  const { rows } = await pool.query<CountRow>(countAttemptSql, [
    key,
    window.windowMs,
    window.restartPast ?? null,
  ]);
  const row = rows[0]!;
  return { count: row.count, msLeft: row.ms_left };
}

/**
 * Rows deleted per statement by `deleteEndedWindows`: each statement is a short transaction, so
 * the attempts counted meanwhile never wait long behind it.
 */
const endedWindowsBatch = 5_000;

/**
 * Deletes the rows whose window has ended, a batch at a time, and answers how many. A row being
 * counted at this moment is skipped (SKIP LOCKED), and so is one whose window restarted since it
 * was read: FOR UPDATE checks the condition again on the row as it is now.
 */
export async function deleteEndedWindows(pool: PgPool, batch = endedWindowsBatch): Promise<number> {
  let deleted = 0;
  for (;;) {
    const { rowCount } = await pool.query(
      `DELETE FROM rate_limits WHERE key IN (
         SELECT key FROM rate_limits WHERE window_ends_at <= now() LIMIT $1 FOR UPDATE SKIP LOCKED)`,
      [batch],
    );
    deleted += rowCount ?? 0;
    if ((rowCount ?? 0) < batch) return deleted;
  }
}
