import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrgEvent } from '../../../domain/orgs/events.ts';
import { evolve, type MaybeOrg } from '../../../domain/orgs/org.ts';
import type { PersonEvent } from '../../../domain/people/events.ts';
import { createPgPool, type PgPool } from '../../../platform/postgres.ts';
import { publishOrgEvents } from '../../../producers/org.ts';
import { publishPersonEvents } from '../../../producers/person.ts';
import { createEventProducer, type EventProducer } from '../../../producers/producer.ts';
import { orgPostgresProjection } from '../../../projections/org.ts';
import { personPostgresProjection } from '../../../projections/person.ts';
import { loadOrg } from '../../../stores/org.ts';
import { claimEmail, personByEmail, personById, releaseEmail } from '../../../stores/people.ts';
import { eventually, runProjectionAs } from '../../harness/platform.ts';

// Membership and person events, published through the producers, projected into Postgres by
// projections/org.ts and projections/person.ts on the real stack. Each test runs the projections
// under consumer groups of its own, so no other process's groups are disturbed.

let pool: PgPool;
let producer: EventProducer;
beforeAll(async () => {
  pool = createPgPool(6);
  producer = await createEventProducer('orrery-test-people');
});
afterAll(async () => {
  await producer.disconnect();
  await pool.end();
});

const group = (name: string) => `test-${name}-${randomUUID()}`;

/** An org's membership story: created, members added, a key, invitations accepted and revoked. */
function membershipStory(orgId: string, emailSuffix: string): OrgEvent[] {
  const at = (minute: number) => new Date(Date.UTC(2026, 10, 22, 10, minute, 0, 123));
  const base = (minute: number) => ({ eventId: randomUUID(), orgId, occurredAt: at(minute) });
  return [
    { ...base(0), type: 'OrgCreated', name: 'Membership Org' },
    { ...base(0), type: 'MemberAdded', personId: 'p_owner', role: 'owner' },
    { ...base(1), type: 'MemberAdded', personId: 'p_member', role: 'member' },
    {
      ...base(2),
      type: 'ApiKeyCreated',
      keyId: `key_${orgId}`,
      name: 'ci',
      keyHash: `hash_${orgId}`,
      keyPrefix: 'orr_abc',
      scopes: ['traces:write'],
      createdBy: 'p_member',
    },
    {
      ...base(3),
      type: 'InvitationCreated',
      invitationId: `inv_a_${orgId}`,
      email: `ada+${emailSuffix}@example.com`,
      role: 'member',
      secretHash: 'a'.repeat(64),
      invitedBy: 'p_owner',
      expiresAt: at(50),
    },
    {
      ...base(4),
      type: 'InvitationCreated',
      invitationId: `inv_b_${orgId}`,
      email: `grace+${emailSuffix}@example.com`,
      role: 'owner',
      secretHash: 'b'.repeat(64),
      invitedBy: '',
      expiresAt: at(55),
    },
    { ...base(5), type: 'InvitationAccepted', invitationId: `inv_a_${orgId}`, personId: 'p_ada' },
    { ...base(5), type: 'MemberAdded', personId: 'p_ada', role: 'member' },
    { ...base(6), type: 'MemberAdded', personId: 'p_member', role: 'owner' },
    { ...base(7), type: 'MemberRemoved', personId: 'p_owner' },
    { ...base(8), type: 'InvitationRevoked', invitationId: `inv_b_${orgId}` },
  ];
}

async function orgRows(orgId: string) {
  const members = await pool.query(
    'SELECT person_id, role, added_at FROM org_members WHERE org_id = $1 ORDER BY person_id',
    [orgId],
  );
  const invitations = await pool.query(
    'SELECT * FROM org_invitations WHERE org_id = $1 ORDER BY invitation_id',
    [orgId],
  );
  const keys = await pool.query('SELECT key_id, created_by, revoked_at FROM api_keys WHERE org_id = $1', [
    orgId,
  ]);
  return { members: members.rows, invitations: invitations.rows, keys: keys.rows };
}

describe('membership events into Postgres (projections/org.ts)', () => {
  it('writes what evolve folds, and a duplicate of any of them changes nothing', async () => {
    const projection = await runProjectionAs(
      { producer },
      orgPostgresProjection(pool),
      group('org-postgres'),
    );
    try {
      const orgId = `org_${randomUUID()}`;
      const story = membershipStory(orgId, orgId);
      await publishOrgEvents(producer, story);
      // One org's events are one partition, applied in order: once the last shows, all have.
      const projected = await eventually(
        async () => {
          const org = await loadOrg(pool, orgId);
          return org?.invitations[`inv_b_${orgId}`]?.status === 'revoked' ? org : undefined;
        },
        20_000,
        'the membership story in Postgres',
      );
      const folded = story.reduce<MaybeOrg>(evolve, undefined)!;
      expect(projected).toEqual(folded);
      // What that is, spelled out, so an evolve and a projection wrong the same way still fail.
      expect(Object.values(projected.members).map(({ personId, role }) => [personId, role])).toEqual(
        expect.arrayContaining([
          ['p_member', 'owner'],
          ['p_ada', 'member'],
        ]),
      );
      expect(Object.keys(projected.members)).toHaveLength(2);
      expect(projected.members.p_member?.addedAt).toEqual(story[8]!.occurredAt);
      expect(projected.invitations[`inv_a_${orgId}`]).toMatchObject({
        status: 'accepted',
        invitedBy: 'p_owner',
      });
      expect(projected.keys[`key_${orgId}`]?.createdBy).toBe('p_member');
      const before = await orgRows(orgId);

      // Every event again (a producer's duplicate, or a replay), then more that meet closed
      // invitations: an accepted one is neither accepted by someone else nor revoked, a revoked
      // one is not accepted, a removed member is removed once.
      const again = story.slice(1).map((event) => ({ ...event, eventId: randomUUID() }));
      const base = { orgId, occurredAt: new Date() };
      await publishOrgEvents(producer, [
        ...again,
        {
          ...base,
          eventId: randomUUID(),
          type: 'InvitationAccepted',
          invitationId: `inv_b_${orgId}`,
          personId: 'p_x',
        },
        { ...base, eventId: randomUUID(), type: 'InvitationRevoked', invitationId: `inv_a_${orgId}` },
        { ...base, eventId: randomUUID(), type: 'MemberRemoved', personId: 'p_nobody' },
        { ...base, eventId: randomUUID(), type: 'TracingEnabled' },
      ]);
      await eventually(
        async () => ((await loadOrg(pool, orgId))?.tracingEnabled ? true : undefined),
        20_000,
        'the duplicates in Postgres',
      );
      expect(await orgRows(orgId)).toEqual(before);
    } finally {
      await projection.stop();
    }
  });
});

describe('person events into Postgres (projections/person.ts)', () => {
  it('signs people up and changes passwords; a second sign-up of a person or an email changes nothing', async () => {
    const projection = await runProjectionAs(
      { producer },
      personPostgresProjection(pool),
      group('person-postgres'),
    );
    try {
      const personId = `person_${randomUUID()}`;
      const email = `ada+${randomUUID()}@example.com`;
      const signedUpAt = new Date('2026-11-22T10:00:00.321Z');
      const base = { personId, occurredAt: signedUpAt };
      const events: PersonEvent[] = [
        {
          ...base,
          eventId: randomUUID(),
          type: 'PersonSignedUp',
          email,
          name: 'Ada',
          passwordHash: '$argon2id$one',
        },
        { ...base, eventId: randomUUID(), type: 'PasswordChanged', passwordHash: '$argon2id$two' },
      ];
      await publishPersonEvents(producer, events);
      const ada = await eventually(
        async () => {
          const person = await personById(pool, personId);
          return person?.passwordHash === '$argon2id$two' ? person : undefined;
        },
        20_000,
        'the person in Postgres',
      );
      expect(ada).toEqual({ personId, email, name: 'Ada', passwordHash: '$argon2id$two', signedUpAt });
      expect(await personByEmail(pool, `  ${email.toUpperCase()} `)).toEqual(ada);

      // The same sign-up again, and another person with the same email: neither is written.
      const impostor = `person_${randomUUID()}`;
      await publishPersonEvents(producer, [
        { ...events[0]!, eventId: randomUUID(), name: 'Ada again', occurredAt: new Date() } as PersonEvent,
        {
          eventId: randomUUID(),
          personId: impostor,
          occurredAt: new Date(),
          type: 'PersonSignedUp',
          email,
          name: 'Not Ada',
          passwordHash: '$argon2id$impostor',
        },
        { ...base, eventId: randomUUID(), type: 'PasswordChanged', passwordHash: '$argon2id$three' },
      ]);
      await eventually(
        async () =>
          (await personById(pool, personId))?.passwordHash === '$argon2id$three' ? true : undefined,
        20_000,
        'the last password change',
      );
      expect(await personById(pool, personId)).toEqual({ ...ada, passwordHash: '$argon2id$three' });
      expect(await personById(pool, impostor)).toBeUndefined();
      expect((await personByEmail(pool, email))?.personId).toBe(personId);
    } finally {
      await projection.stop();
    }
  });
});

describe('a batch delivered again after the write and before the commit', () => {
  it('changes nothing in org_members, org_invitations or people', async () => {
    const orgGroup = group('org-postgres');
    const personGroup = group('person-postgres');
    const orgId = `org_${randomUUID()}`;
    const personId = `person_${randomUUID()}`;
    const email = `redelivered+${randomUUID()}@example.com`;
    // First life: each group writes its batches; once one has written the last of this test's
    // events, the consumer dies before committing it (and again each time it is given it back).
    const crashed = new Set<string>();
    const crashOnce = (name: string, written: () => Promise<boolean>) => async () => {
      if (!(await written())) return;
      crashed.add(name);
      throw new Error('simulated crash between the write and the commit');
    };
    const firstOrg = await runProjectionAs({ producer }, orgPostgresProjection(pool), orgGroup, {
      afterProjectBeforeCommit: crashOnce(
        orgGroup,
        async () => (await loadOrg(pool, orgId))?.invitations[`inv_b_${orgId}`]?.status === 'revoked',
      ),
    });
    const firstPerson = await runProjectionAs({ producer }, personPostgresProjection(pool), personGroup, {
      afterProjectBeforeCommit: crashOnce(
        personGroup,
        async () => (await personById(pool, personId)) !== undefined,
      ),
    });
    await publishOrgEvents(producer, membershipStory(orgId, orgId));
    await publishPersonEvents(producer, [
      {
        eventId: randomUUID(),
        personId,
        occurredAt: new Date(),
        type: 'PersonSignedUp',
        email,
        name: 'Once',
        passwordHash: '$argon2id$once',
      },
    ]);
    await eventually(async () => (crashed.size === 2 ? true : undefined), 30_000, 'both groups crashed');
    await Promise.all([firstOrg.stop(), firstPerson.stop()]);
    const orgBefore = await orgRows(orgId);
    const personBefore = await personById(pool, personId);
    expect(orgBefore.members).toHaveLength(2);
    expect(orgBefore.invitations.map((row) => row.status)).toEqual(['accepted', 'revoked']);
    expect(personBefore?.email).toBe(email);

    const committed = new Set<string>();
    const record = (name: string) => async () => {
      committed.add(name);
    };
    const secondOrg = await runProjectionAs({ producer }, orgPostgresProjection(pool), orgGroup, {
      afterProjectBeforeCommit: record(orgGroup),
    });
    const secondPerson = await runProjectionAs({ producer }, personPostgresProjection(pool), personGroup, {
      afterProjectBeforeCommit: record(personGroup),
    });
    await eventually(async () => (committed.size === 2 ? true : undefined), 30_000, 'redelivered batches');
    await Promise.all([secondOrg.stop(), secondPerson.stop()]);
    expect(await orgRows(orgId)).toEqual(orgBefore);
    expect(await personById(pool, personId)).toEqual(personBefore);
    const people = await pool.query('SELECT count(*)::int AS n FROM people WHERE email = $1', [email]);
    expect(people.rows[0].n).toBe(1);
  });
});

describe('email claims (stores/people.ts)', () => {
  it('one person per email, whatever its case; a retry keeps the claim; only the claimant releases it', async () => {
    const email = `claim+${randomUUID()}@example.com`;
    const [ada, grace] = [`person_${randomUUID()}`, `person_${randomUUID()}`];
    expect(await claimEmail(pool, email, ada)).toBe(true);
    expect(await claimEmail(pool, email, ada)).toBe(true);
    expect(await claimEmail(pool, email, grace)).toBe(false);
    expect(await claimEmail(pool, ` ${email.toUpperCase()}`, grace)).toBe(false);
    await releaseEmail(pool, email, grace);
    expect(await claimEmail(pool, email, grace)).toBe(false);
    await releaseEmail(pool, email.toUpperCase(), ada);
    expect(await claimEmail(pool, email, grace)).toBe(true);
    expect(await claimEmail(pool, email, ada)).toBe(false);
    const rows = await pool.query('SELECT email, person_id FROM email_claims WHERE email = $1', [email]);
    expect(rows.rows).toEqual([{ email, person_id: grace }]);
  });

  it('of many people claiming one email at once, exactly one gets it', async () => {
    const email = `race+${randomUUID()}@example.com`;
    const claimants = Array.from({ length: 8 }, () => `person_${randomUUID()}`);
    const outcomes = await Promise.all(claimants.map((personId) => claimEmail(pool, email, personId)));
    expect(outcomes.filter(Boolean)).toHaveLength(1);
  });
});
