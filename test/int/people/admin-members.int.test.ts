import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminDeps, addMember, createApiKey, createOrg } from '../../../api/admin/commands.ts';
import type { RunningConsumer } from '../../../consumers/runtime.ts';
import { decide, OrgCommandRefused } from '../../../domain/orgs/decide.ts';
import { PersonCommandRefused } from '../../../domain/people/decide.ts';
import { createPgPool } from '../../../platform/postgres.ts';
import { publishPersonEvents } from '../../../producers/person.ts';
import { createEventProducer } from '../../../producers/producer.ts';
import { orgPostgresProjection } from '../../../projections/org.ts';
import { personPostgresProjection } from '../../../projections/person.ts';
import { loadOrg } from '../../../stores/org.ts';
import { personByEmail } from '../../../stores/people.ts';
import { eventually, runProjectionAs } from '../../harness/platform.ts';

// `npm run admin -- member add`: an operator gives an org made by `org create` its first owner.
// The org and person projections run in this process under groups of the test's own, as the
// consumers process would; the command waits until the read model shows what it published.

let admin: AdminDeps;
let projections: RunningConsumer[];
beforeAll(async () => {
  admin = { pool: createPgPool(4), producer: await createEventProducer('orrery-test-admin') };
  projections = [
    await runProjectionAs(admin, orgPostgresProjection(admin.pool), `test-org-postgres-${randomUUID()}`),
    await runProjectionAs(
      admin,
      personPostgresProjection(admin.pool),
      `test-person-postgres-${randomUUID()}`,
    ),
  ];
});
afterAll(async () => {
  await Promise.all(projections.map((projection) => projection.stop()));
  await admin.producer.disconnect();
  await admin.pool.end();
});

/** A person who signed up, as the API will publish it, once it is in the read model. */
async function signUp(name: string): Promise<{ personId: string; email: string }> {
  const personId = `person_${randomUUID()}`;
  const email = `${name.toLowerCase()}+${randomUUID()}@example.com`;
  await publishPersonEvents(admin.producer, [
    {
      eventId: randomUUID(),
      personId,
      occurredAt: new Date(),
      type: 'PersonSignedUp',
      email,
      name,
      passwordHash: '$argon2id$test',
    },
  ]);
  await eventually(async () => personByEmail(admin.pool, email), 20_000, `${name} in people`);
  return { personId, email };
}

describe('member add (api/admin/commands.ts)', () => {
  it("gives an operator's org its first owner, whom the org's decisions then see", async () => {
    const org = await createOrg(admin, 'Operator Org');
    expect(org.members).toEqual({});
    const ada = await signUp('Ada');

    const after = await addMember(admin, org.orgId, ` ${ada.email.toUpperCase()}`, 'owner');
    expect(after.members).toEqual({
      [ada.personId]: { personId: ada.personId, role: 'owner', addedAt: expect.any(Date) },
    });
    const row = await admin.pool.query('SELECT person_id, role FROM org_members WHERE org_id = $1', [
      org.orgId,
    ]);
    expect(row.rows).toEqual([{ person_id: ada.personId, role: 'owner' }]);

    // Loaded from Postgres (stores/org.ts), the org knows its owner: she may invite, and being
    // its only owner she may not leave.
    const loaded = await loadOrg(admin.pool, org.orgId);
    const meta = { eventId: randomUUID(), orgId: org.orgId, now: new Date() };
    const actor = { kind: 'person', personId: ada.personId } as const;
    expect(
      decide(
        {
          ...meta,
          type: 'InviteMember',
          actor,
          invitationId: 'inv',
          email: 'grace@example.com',
          role: 'member',
          secretHash: 'x',
          expiresAt: new Date(Date.now() + 60_000),
        },
        loaded,
      ).map((event) => event.type),
    ).toEqual(['InvitationCreated']);
    expect(() => decide({ ...meta, type: 'RemoveMember', actor, personId: ada.personId }, loaded)).toThrow(
      expect.objectContaining({ code: 'last_owner' }),
    );
  });

  it('adding again with the same role publishes nothing; another role changes it', async () => {
    const org = await createOrg(admin, 'Roles Org');
    const grace = await signUp('Grace');
    const first = await addMember(admin, org.orgId, grace.email, 'member');
    const again = await addMember(admin, org.orgId, grace.email, 'member');
    expect(again.members).toEqual(first.members);
    const promoted = await addMember(admin, org.orgId, grace.email, 'owner');
    expect(promoted.members[grace.personId]?.role).toBe('owner');
  });

  it('refuses an email no one signed up with, and an org that does not exist', async () => {
    const org = await createOrg(admin, 'Lonely Org');
    await expect(addMember(admin, org.orgId, `nobody+${randomUUID()}@example.com`, 'owner')).rejects.toThrow(
      PersonCommandRefused,
    );
    const ada = await signUp('Ada');
    await expect(addMember(admin, `org_${randomUUID()}`, ada.email, 'owner')).rejects.toThrow(
      OrgCommandRefused,
    );
    expect((await loadOrg(admin.pool, org.orgId))?.members).toEqual({});
  });

  it("an operator's key says no one created it", async () => {
    const org = await createOrg(admin, 'Key Org');
    const { keyId } = await createApiKey(admin, org.orgId, ['traces:write']);
    const row = await admin.pool.query('SELECT created_by FROM api_keys WHERE key_id = $1', [keyId]);
    expect(row.rows).toEqual([{ created_by: '' }]);
  });
});

describe('npm run admin -- member add (api/admin/cli.ts)', () => {
  const run = promisify(execFile);
  /** The command in a process of its own, as an operator runs it; this process projects meanwhile. */
  async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const { stdout, stderr } = await run(
        process.execPath,
        ['--import', 'tsx', 'api/admin/cli.ts', ...args],
        {
          env: {
            ...process.env,
            ORRERY_SERVICE: 'admin',
            ORRERY_LOG_DESTINATION: 'stderr',
            ORRERY_LOG_LEVEL: 'error',
          },
          encoding: 'utf8',
          timeout: 60_000,
        },
      );
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string };
      if (typeof failed.code !== 'number') throw error;
      return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
    }
  }

  it('adds a member and answers with the org; a mistyped role is a usage error, an unknown email a refusal', async () => {
    const org = await createOrg(admin, 'CLI Org');
    const ada = await signUp('Ada');

    const added = await cli(
      'member',
      'add',
      '--org',
      org.orgId,
      '--email',
      ada.email,
      '--role',
      'owner',
      '--json',
    );
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout).members[ada.personId]).toMatchObject({
      personId: ada.personId,
      role: 'owner',
    });

    const described = await cli('member', 'add', '--org', org.orgId, '--email', ada.email, '--role', 'owner');
    expect(described.stdout.trim()).toBe(`member add: done (${ada.email} is an owner of ${org.orgId})`);

    const mistyped = await cli('member', 'add', '--org', org.orgId, '--email', ada.email, '--role', 'admin');
    expect(mistyped.code).toBe(2);
    expect(mistyped.stderr).toContain('--role: unknown role admin; use owner or member');

    const missing = await cli('member', 'add', '--org', org.orgId, '--role', 'member');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing --email');

    const unknown = await cli(
      'member',
      'add',
      '--org',
      org.orgId,
      '--email',
      'nobody@example.invalid',
      '--role',
      'member',
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No one has signed up with nobody@example.invalid');
    expect(Object.keys((await loadOrg(admin.pool, org.orgId))!.members)).toEqual([ada.personId]);
  });
});
