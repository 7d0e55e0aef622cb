import type { SessionTimes } from '../domain/people/sessions.ts';
import type { PgPool } from '../platform/postgres.ts';

// Dashboard sessions in Postgres (migration 1700000009000), by the SHA-256 of the cookie's
// secret. The API reads and writes them; the retention job deletes expired ones.

export interface StoredSession extends SessionTimes {
  personId: string;
  csrfSecret: string;
}

interface SessionRow {
  person_id: string;
  csrf_secret: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
}

export async function insertSession(
  pool: PgPool,
  sessionHash: string,
  session: StoredSession,
): Promise<void> {
  await pool.query(
    `INSERT INTO sessions (session_hash, person_id, csrf_secret, created_at, last_seen_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [
      sessionHash,
      session.personId,
      session.csrfSecret,
      session.createdAt,
      session.lastSeenAt,
      session.expiresAt,
    ],
  );
}

export async function findSession(pool: PgPool, sessionHash: string): Promise<StoredSession | undefined> {
  const { rows } = await pool.query<SessionRow>(
    'SELECT person_id, csrf_secret, created_at, last_seen_at, expires_at FROM sessions WHERE session_hash = $1',
    [sessionHash],
  );
  const row = rows[0];
  return (
    row && {
      personId: row.person_id,
      csrfSecret: row.csrf_secret,
      createdAt: row.created_at,
      lastSeenAt: row.last_seen_at,
      expiresAt: row.expires_at,
    }
  );
}

export async function touchSession(pool: PgPool, sessionHash: string, lastSeenAt: Date, expiresAt: Date) {
  await pool.query('UPDATE sessions SET last_seen_at = $2, expires_at = $3 WHERE session_hash = $1', [
    sessionHash,
    lastSeenAt,
    expiresAt,
  ]);
}

export async function deleteSession(pool: PgPool, sessionHash: string): Promise<void> {
  await pool.query('DELETE FROM sessions WHERE session_hash = $1', [sessionHash]);
}

/** Retention: sessions that can no longer be used. */
export async function deleteExpiredSessions(pool: PgPool, now: Date): Promise<number> {
  const { rowCount } = await pool.query('DELETE FROM sessions WHERE expires_at <= $1', [now]);
  return rowCount ?? 0;
}
