import type { OrgEvent } from '../domain/orgs/events.ts';
import type { InvitationState } from '../domain/orgs/org.ts';
import { modelKey } from '../domain/tracing/org-prices.ts';
import type { PgClient, PgPool } from '../platform/postgres.ts';
import { orgEventFromWire } from '../schemas/events/org-mapping.ts';
import { projectOnce } from './postgres-offsets.ts';
import type { Projection } from './projection.ts';

// Org events → Postgres: orgs, api_keys, credit_grants, charges, org_members, org_invitations,
// org_model_prices.
// Each statement mirrors domain/orgs' evolve for one event type and is itself idempotent; offsets
// make the batch exactly-once.
const writers: {
  [T in OrgEvent['type']]: (client: PgClient, event: Extract<OrgEvent, { type: T }>) => Promise<unknown>;
} = {
  OrgCreated: (client, event) =>
    client.query(
      'INSERT INTO orgs (org_id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT (org_id) DO NOTHING',
      [event.orgId, event.name, event.occurredAt],
    ),
  ApiKeyCreated: (client, event) =>
    client.query(
      `INSERT INTO api_keys (key_id, org_id, name, key_hash, key_prefix, scopes, created_at, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (key_id) DO NOTHING`,
      [
        event.keyId,
        event.orgId,
        event.name,
        event.keyHash,
        event.keyPrefix,
        event.scopes,
        event.occurredAt,
        event.createdBy,
      ],
    ),
  ApiKeyRevoked: (client, event) =>
    client.query('UPDATE api_keys SET revoked_at = $2 WHERE key_id = $1 AND revoked_at IS NULL', [
      event.keyId,
      event.occurredAt,
    ]),
  CreditGranted: (client, event) =>
    client.query(
      `INSERT INTO credit_grants (grant_id, org_id, amount_cents, reason, granted_at)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (grant_id) DO NOTHING`,
      [event.grantId, event.orgId, event.amountCents, event.reason, event.occurredAt],
    ),
  TracingEnabled: (client, event) =>
    client.query('UPDATE orgs SET tracing_enabled = true WHERE org_id = $1', [event.orgId]),
  TracingRequested: (client, event) =>
    client.query(
      `UPDATE orgs SET tracing_requested_at = $2, tracing_requested_by = $3
       WHERE org_id = $1 AND tracing_requested_at IS NULL`,
      [event.orgId, event.occurredAt, event.personId],
    ),
  ChargePosted: (client, event) =>
    client.query(
      `INSERT INTO charges (charge_id, org_id, model, day, cents, posted_at)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (charge_id) DO NOTHING`,
      [event.chargeId, event.orgId, event.model, event.day, event.cents, event.occurredAt],
    ),
  // Adding a member again sets their role (and when it was given), as evolve does.
  MemberAdded: (client, event) =>
    client.query(
      `INSERT INTO org_members (org_id, person_id, role, added_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (org_id, person_id) DO UPDATE SET role = EXCLUDED.role, added_at = EXCLUDED.added_at`,
      [event.orgId, event.personId, event.role, event.occurredAt],
    ),
  MemberRemoved: (client, event) =>
    client.query('DELETE FROM org_members WHERE org_id = $1 AND person_id = $2', [
      event.orgId,
      event.personId,
    ]),
  InvitationCreated: (client, event) =>
    client.query(
      `INSERT INTO org_invitations
         (invitation_id, org_id, email, role, secret_hash, invited_by, created_at, expires_at, status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'open') ON CONFLICT (invitation_id) DO NOTHING`,
      [
        event.invitationId,
        event.orgId,
        event.email,
        event.role,
        event.secretHash,
        event.invitedBy,
        event.occurredAt,
        event.expiresAt,
      ],
    ),
  // Only an open invitation is accepted or revoked; one already closed stays as it is.
  InvitationAccepted: (client, event) => closeInvitation(client, event, 'accepted'),
  InvitationRevoked: (client, event) => closeInvitation(client, event, 'revoked'),
  // Keyed by the model in lower case, as evolve keys it: setting it again in any case replaces it.
  ModelPriceSet: (client, event) =>
    client.query(
      `INSERT INTO org_model_prices
         (org_id, model_key, model, input, output, cached_input, reasoning, set_at, set_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (org_id, model_key) DO UPDATE SET model = EXCLUDED.model, input = EXCLUDED.input,
         output = EXCLUDED.output, cached_input = EXCLUDED.cached_input,
         reasoning = EXCLUDED.reasoning, set_at = EXCLUDED.set_at, set_by = EXCLUDED.set_by`,
      [
        event.orgId,
        modelKey(event.model),
        event.model,
        event.usdPerMillion.input,
        event.usdPerMillion.output,
        event.usdPerMillion.cached_input ?? null,
        event.usdPerMillion.reasoning ?? null,
        event.occurredAt,
        event.setBy,
      ],
    ),
  ModelPriceRemoved: (client, event) =>
    client.query('DELETE FROM org_model_prices WHERE org_id = $1 AND model_key = $2', [
      event.orgId,
      modelKey(event.model),
    ]),
};

function closeInvitation(
  client: PgClient,
  event: { orgId: string; invitationId: string },
  status: Exclude<InvitationState['status'], 'open'>,
): Promise<unknown> {
  return client.query(
    `UPDATE org_invitations SET status = $3 WHERE invitation_id = $1 AND org_id = $2 AND status = 'open'`,
    [event.invitationId, event.orgId, status],
  );
}

export function orgPostgresProjection(pool: PgPool): Projection<OrgEvent> {
  const groupId = 'orrery-org-postgres';
  return {
    groupId,
    stream: 'org',
    from: { wire: orgEventFromWire },
    project: (batch, consumingGroup) =>
      projectOnce(pool, consumingGroup, batch, (client, event) =>
        (writers[event.type] as (client: PgClient, event: OrgEvent) => Promise<unknown>)(client, event),
      ),
  };
}
