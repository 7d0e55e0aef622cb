import { Set as IdSet } from 'immutable';
import type { Role, Scope } from '../domain/orgs/events.ts';
import type { InvitationState, MaybeOrg, OrgModelPrice } from '../domain/orgs/org.ts';
import { inTransaction, type PgPool } from '../platform/postgres.ts';

/**
 * Loads an org's decider state from the Postgres read model (projections/org.ts), for the admin
 * commands (api/admin/commands.ts) and the charge posting (jobs/post-charges.ts).
 */
export async function loadOrg(pool: PgPool, orgId: string): Promise<MaybeOrg> {
  // One snapshot for every read: a projection committing between two of them would give a state
  // no sequence of the org's events leaves (its later members, say, without its earlier key).
  return inTransaction(pool, async (client) => {
    await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const org = await client.query<{
      name: string;
      tracing_enabled: boolean;
      tracing_requested_at: Date | null;
      tracing_requested_by: string | null;
      created_at: Date;
    }>(
      `SELECT name, tracing_enabled, tracing_requested_at, tracing_requested_by, created_at
       FROM orgs WHERE org_id = $1`,
      [orgId],
    );
    const row = org.rows[0];
    if (!row) return undefined;
    const keys = await client.query<{
      key_id: string;
      name: string;
      key_hash: string;
      key_prefix: string;
      scopes: Scope[];
      created_at: Date;
      revoked_at: Date | null;
      created_by: string;
    }>(
      `SELECT key_id, name, key_hash, key_prefix, scopes, created_at, revoked_at, created_by
         FROM api_keys WHERE org_id = $1`,
      [orgId],
    );
    const grants = await client.query<{ grant_id: string; amount_cents: number }>(
      'SELECT grant_id, amount_cents FROM credit_grants WHERE org_id = $1',
      [orgId],
    );
    const charges = await client.query<{ charge_id: string; cents: number }>(
      'SELECT charge_id, cents FROM charges WHERE org_id = $1',
      [orgId],
    );
    const members = await client.query<{ person_id: string; role: Role; added_at: Date }>(
      'SELECT person_id, role, added_at FROM org_members WHERE org_id = $1',
      [orgId],
    );
    const invitations = await client.query<{
      invitation_id: string;
      email: string;
      role: Role;
      secret_hash: string;
      invited_by: string;
      created_at: Date;
      expires_at: Date;
      status: InvitationState['status'];
    }>(
      `SELECT invitation_id, email, role, secret_hash, invited_by, created_at, expires_at, status
         FROM org_invitations WHERE org_id = $1`,
      [orgId],
    );
    const prices = await client.query<{
      model_key: string;
      model: string;
      input: string;
      output: string;
      cached_input: string | null;
      reasoning: string | null;
      set_at: Date;
      set_by: string;
    }>(
      `SELECT model_key, model, input, output, cached_input, reasoning, set_at, set_by
         FROM org_model_prices WHERE org_id = $1`,
      [orgId],
    );
    return {
      orgId,
      name: row.name,
      createdAt: row.created_at,
      tracingEnabled: row.tracing_enabled,
      ...(row.tracing_requested_at === null
        ? {}
        : { tracingRequested: { at: row.tracing_requested_at, by: row.tracing_requested_by ?? '' } }),
      creditGrantedCents: grants.rows.reduce((sum, grant) => sum + grant.amount_cents, 0),
      grantIds: IdSet(grants.rows.map((grant) => grant.grant_id)),
      chargedCents: charges.rows.reduce((sum, charge) => sum + charge.cents, 0),
      chargeIds: IdSet(charges.rows.map((charge) => charge.charge_id)),
      keys: Object.fromEntries(
        keys.rows.map((key) => [
          key.key_id,
          {
            keyId: key.key_id,
            name: key.name,
            keyHash: key.key_hash,
            keyPrefix: key.key_prefix,
            scopes: key.scopes,
            revoked: key.revoked_at !== null,
            createdAt: key.created_at,
            createdBy: key.created_by,
          },
        ]),
      ),
      members: Object.fromEntries(
        members.rows.map((member) => [
          member.person_id,
          { personId: member.person_id, role: member.role, addedAt: member.added_at },
        ]),
      ),
      invitations: Object.fromEntries(
        invitations.rows.map((invitation) => [
          invitation.invitation_id,
          {
            invitationId: invitation.invitation_id,
            email: invitation.email,
            role: invitation.role,
            secretHash: invitation.secret_hash,
            invitedBy: invitation.invited_by,
            createdAt: invitation.created_at,
            expiresAt: invitation.expires_at,
            status: invitation.status,
          },
        ]),
      ),
      prices: new Map(
        prices.rows.map((price): [string, OrgModelPrice] => [
          price.model_key,
          {
            model: price.model,
            // numeric reads as text: the number as it was set, exactly.
            usdPerMillion: {
              input: Number(price.input),
              output: Number(price.output),
              ...(price.cached_input === null ? {} : { cached_input: Number(price.cached_input) }),
              ...(price.reasoning === null ? {} : { reasoning: Number(price.reasoning) }),
            },
            setAt: price.set_at,
            setBy: price.set_by,
          },
        ]),
      ),
    };
  });
}
