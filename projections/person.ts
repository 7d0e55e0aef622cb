import type { PersonEvent } from '../domain/people/events.ts';
import type { PgClient, PgPool } from '../platform/postgres.ts';
import { personEventFromWire } from '../schemas/events/person-mapping.ts';
import { projectOnce } from './postgres-offsets.ts';
import type { Projection } from './projection.ts';

// Person events → Postgres `people`. Each statement mirrors domain/people's evolve for one event
// type and is itself idempotent; offsets make the batch exactly-once.
const writers: {
  [T in PersonEvent['type']]: (
    client: PgClient,
    event: Extract<PersonEvent, { type: T }>,
  ) => Promise<unknown>;
} = {
  // A sign-up for an email someone already has is ignored like a second sign-up of the same
  // person: the email claim (stores/people.ts) keeps that from being published, and a unique
  // violation here would dead-letter the event rather than decide anything.
  PersonSignedUp: (client, event) =>
    client.query(
      `INSERT INTO people (person_id, email, name, password_hash, signed_up_at)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
      [event.personId, event.email, event.name, event.passwordHash, event.occurredAt],
    ),
  PasswordChanged: (client, event) =>
    client.query('UPDATE people SET password_hash = $2 WHERE person_id = $1', [
      event.personId,
      event.passwordHash,
    ]),
};

export function personPostgresProjection(pool: PgPool): Projection<PersonEvent> {
  const groupId = 'orrery-person-postgres';
  return {
    groupId,
    stream: 'person',
    from: { wire: personEventFromWire },
    project: (batch, consumingGroup) =>
      projectOnce(pool, consumingGroup, batch, (client, event) =>
        (writers[event.type] as (client: PgClient, event: PersonEvent) => Promise<unknown>)(client, event),
      ),
  };
}
