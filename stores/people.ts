import { normalizeEmail } from '../domain/people/credentials.ts';
import type { PersonEvent } from '../domain/people/events.ts';
import type { PersonState } from '../domain/people/person.ts';
import type { PgPool } from '../platform/postgres.ts';

// One person per email, and people read back from their read model (projections/person.ts).
// Emails are normalized here as well as at the edge, so a lookup or a claim cannot miss by case.

/**
 * Claims an email for a person before their PersonSignedUp is published. True when the person
 * holds the claim (just taken, or theirs already: a retried sign-up); false when someone else does.
 * A claim a minute old whose person never reached the read model is taken over: its sign-up
 * failed in a way that left it behind (the process died between claiming and publishing).
 */
export async function claimEmail(pool: PgPool, email: string, personId: string): Promise<boolean> {
  const result = await pool.query<{ person_id: string }>(
    `WITH claimed AS (
       INSERT INTO email_claims AS c (email, person_id, claimed_at) VALUES ($1, $2, now())
       ON CONFLICT (email) DO UPDATE SET person_id = EXCLUDED.person_id, claimed_at = now()
         WHERE c.claimed_at < now() - interval '1 minute'
           AND NOT EXISTS (SELECT 1 FROM people p WHERE p.person_id = c.person_id)
       RETURNING person_id
     )
     SELECT person_id FROM claimed UNION ALL SELECT person_id FROM email_claims WHERE email = $1`,
    [normalizeEmail(email), personId],
  );
  return result.rows[0]?.person_id === personId;
}

/** Gives a claim back (its sign-up was not published); only the person holding it can. */
export async function releaseEmail(pool: PgPool, email: string, personId: string): Promise<void> {
  await pool.query('DELETE FROM email_claims WHERE email = $1 AND person_id = $2', [
    normalizeEmail(email),
    personId,
  ]);
}

interface PersonRow {
  person_id: string;
  email: string;
  name: string;
  password_hash: string;
  signed_up_at: Date;
}

const personColumns = 'person_id, email, name, password_hash, signed_up_at';

const toPerson = (row: PersonRow | undefined): PersonState | undefined =>
  row && {
    personId: row.person_id,
    email: row.email,
    name: row.name,
    passwordHash: row.password_hash,
    signedUpAt: row.signed_up_at,
  };

export async function personByEmail(pool: PgPool, email: string): Promise<PersonState | undefined> {
  const result = await pool.query<PersonRow>(`SELECT ${personColumns} FROM people WHERE email = $1`, [
    normalizeEmail(email),
  ]);
  return toPerson(result.rows[0]);
}

export async function personById(pool: PgPool, personId: string): Promise<PersonState | undefined> {
  const result = await pool.query<PersonRow>(`SELECT ${personColumns} FROM people WHERE person_id = $1`, [
    personId,
  ]);
  return toPerson(result.rows[0]);
}

/** People by id, for lists of members; an id not (yet) in the read model is left out. */
export async function peopleByIds(
  pool: PgPool,
  personIds: readonly string[],
): Promise<Map<string, PersonState>> {
  const result = await pool.query<PersonRow>(
    `SELECT ${personColumns} FROM people WHERE person_id = ANY($1)`,
    [personIds],
  );
  return new Map(
    result.rows.flatMap((row) => toPerson(row) ?? []).map((person) => [person.personId, person]),
  );
}

/**
 * Whether the read model shows a person event yet (projections/person.ts writes it): the shell
 * waits for this before answering, so the caller's next request (a login, the members list) sees
 * the person.
 */
export async function personShows(pool: PgPool, event: PersonEvent): Promise<boolean> {
  const person = await personById(pool, event.personId);
  switch (event.type) {
    case 'PersonSignedUp':
      return person !== undefined;
    case 'PasswordChanged':
      return person?.passwordHash === event.passwordHash;
  }
}
