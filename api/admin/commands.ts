import { randomUUID } from 'node:crypto';
import { decide, type OrgCommand } from '../../domain/orgs/decide.ts';
import type { OrgEvent, Role, Scope } from '../../domain/orgs/events.ts';
import { operator } from '../../domain/orgs/membership.ts';
import type { OrgState } from '../../domain/orgs/org.ts';
import { PersonCommandRefused } from '../../domain/people/decide.ts';
import { modelKey } from '../../domain/tracing/org-prices.ts';
import { newId } from '../../platform/ids.ts';
import { waitFor } from '../../platform/poll.ts';
import type { PgPool } from '../../platform/postgres.ts';
import { publishOrgEvents } from '../../producers/org.ts';
import type { EventProducer } from '../../producers/producer.ts';
import { loadOrg } from '../../stores/org.ts';
import { personByEmail } from '../../stores/people.ts';
import { newApiKey } from '../auth/api-keys.ts';

// The admin commands that stand in for the dashboard's Settings page: load the org from its read
// model, decide, publish, and wait until the read model shows the result, so that the next
// command (a key for the org just created, say) sees it.

export interface AdminDeps {
  pool: PgPool;
  producer: EventProducer;
  /** How long to wait for the projection; the consumers must be running. */
  projectionTimeoutMs?: number;
}

async function execute(deps: AdminDeps, command: OrgCommand): Promise<OrgState | undefined> {
  const events = decide(command, await loadOrg(deps.pool, command.orgId));
  await publishOrgEvents(deps.producer, events);
  for (const event of events) await waitUntilProjected(deps, event);
  return loadOrg(deps.pool, command.orgId);
}

// What the read model shows once each event is projected (projections/org.ts).
const projected: {
  [T in OrgEvent['type']]: (org: OrgState, event: Extract<OrgEvent, { type: T }>) => boolean;
} = {
  OrgCreated: () => true,
  ApiKeyCreated: (org, event) => org.keys[event.keyId] !== undefined,
  ApiKeyRevoked: (org, event) => org.keys[event.keyId]?.revoked === true,
  CreditGranted: (org, event) => org.grantIds.has(event.grantId),
  TracingEnabled: (org) => org.tracingEnabled,
  TracingRequested: (org) => org.tracingRequested !== undefined,
  ChargePosted: (org, event) => org.chargeIds.has(event.chargeId),
  MemberAdded: (org, event) => org.members[event.personId]?.role === event.role,
  MemberRemoved: (org, event) => org.members[event.personId] === undefined,
  InvitationCreated: (org, event) => org.invitations[event.invitationId] !== undefined,
  InvitationAccepted: (org, event) => org.invitations[event.invitationId]?.status === 'accepted',
  InvitationRevoked: (org, event) => org.invitations[event.invitationId]?.status === 'revoked',
  ModelPriceSet: (org, event) =>
    org.prices.get(modelKey(event.model))?.setAt.getTime() === event.occurredAt.getTime(),
  ModelPriceRemoved: (org, event) => !org.prices.has(modelKey(event.model)),
};

async function waitUntilProjected(deps: AdminDeps, event: OrgEvent): Promise<void> {
  const isProjected = projected[event.type] as (org: OrgState, event: OrgEvent) => boolean;
  await waitFor(
    `${event.type} for org ${event.orgId} in the read model`,
    async () => {
      const org = await loadOrg(deps.pool, event.orgId);
      return org !== undefined && isProjected(org, event);
    },
    {
      timeoutMs: deps.projectionTimeoutMs ?? 15_000,
      intervalMs: 50,
      hint: 'it was published; are the consumers running (npm start)?',
    },
  );
}

const meta = (orgId: string) => ({ eventId: randomUUID(), orgId, now: new Date() });

export async function createOrg(deps: AdminDeps, name: string): Promise<OrgState> {
  const orgId = newId('org');
  return (await execute(deps, { ...meta(orgId), type: 'CreateOrg', name }))!;
}

export interface CreatedKey {
  key: string;
  keyId: string;
  orgId: string;
  scopes: Scope[];
}

/** Keys are random and shown once; only their SHA-256 is published and stored. */
export async function createApiKey(
  deps: AdminDeps,
  orgId: string,
  scopes: Scope[],
  name = 'default',
): Promise<CreatedKey> {
  const { key, command } = newApiKey(meta(orgId), { name, scopes, createdBy: '' });
  await execute(deps, command);
  const { keyId } = command;
  return { key, keyId, orgId, scopes };
}

export const revokeApiKey = (deps: AdminDeps, orgId: string, keyId: string) =>
  execute(deps, { ...meta(orgId), type: 'RevokeApiKey', keyId });

export const grantCredit = (deps: AdminDeps, orgId: string, amountCents: number, reason: string) =>
  execute(deps, { ...meta(orgId), type: 'GrantCredit', grantId: newId('grant'), amountCents, reason });

export const enableTracing = (deps: AdminDeps, orgId: string) =>
  execute(deps, { ...meta(orgId), type: 'EnableTracing' });

/**
 * Adds a person who has signed up to an org with a role, as an operator (an owner of every org):
 * how an org made by `org create` gets its first owner. Adding a member again changes their role.
 */
export async function addMember(
  deps: AdminDeps,
  orgId: string,
  email: string,
  role: Role,
): Promise<OrgState> {
  const person = await personByEmail(deps.pool, email);
  if (!person)
    throw new PersonCommandRefused(
      'person_not_found',
      `No one has signed up with ${email}: they sign up first.`,
    );
  return (await execute(deps, {
    ...meta(orgId),
    type: 'AddMember',
    actor: operator,
    personId: person.personId,
    role,
  }))!;
}

/** The orgs that asked to join the tracing beta and are not in it yet, oldest request first. */
export async function tracingRequests(pool: PgPool) {
  const { rows } = await pool.query<{ org_id: string; name: string; tracing_requested_at: Date }>(
    `SELECT org_id, name, tracing_requested_at FROM orgs
     WHERE tracing_requested_at IS NOT NULL AND NOT tracing_enabled ORDER BY tracing_requested_at`,
  );
  return rows.map((row) => ({
    orgId: row.org_id,
    name: row.name,
    requestedAt: row.tracing_requested_at.toISOString(),
  }));
}
