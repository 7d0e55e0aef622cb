import type { UsdPerMillion } from '../tracing/prices.ts';

// The org stream's facts (topic orrery.org.v1), in the past tense. Their protobuf form is
// schemas/events/org.proto; producers/org.ts and projections/org.ts map between the two.

export const scopes = ['inference:invoke', 'traces:write', 'sandboxes:write'] as const;
export type Scope = (typeof scopes)[number];

/** An owner manages members and invitations; a member uses everything else. */
export const roles = ['owner', 'member'] as const;
export type Role = (typeof roles)[number];

interface EventBase {
  eventId: string;
  orgId: string;
  occurredAt: Date;
}

export type OrgEvent =
  | (EventBase & { type: 'OrgCreated'; name: string })
  | (EventBase & {
      type: 'ApiKeyCreated';
      keyId: string;
      name: string;
      keyHash: string;
      keyPrefix: string;
      scopes: Scope[];
      /** The person who created it (Settings, or the command-line login); '' for an operator. */
      createdBy: string;
    })
  | (EventBase & { type: 'ApiKeyRevoked'; keyId: string })
  | (EventBase & { type: 'CreditGranted'; grantId: string; amountCents: number; reason: string })
  | (EventBase & { type: 'TracingEnabled' })
  // A member asked to join the tracing beta (spec 001, Authentication 4: "access is requested on
  // the Tracing page"); an operator grants it with TracingEnabled.
  | (EventBase & { type: 'TracingRequested'; personId: string })
  // A day's charge for one model (spec 000, Billing rules): posted by jobs/post-charges.ts, in
  // integer cents; `chargeId` is derived from what it charges, so posting it twice is one charge.
  | (EventBase & { type: 'ChargePosted'; chargeId: string; model: string; day: string; cents: number })
  // The org's own price for a model (issue 50, item 1), replacing any it had for the model in
  // any case (`GPT-4o` after `gpt-4o`) and winning over the default; spans received from then
  // on are priced at it. `setBy`: the person; '' for an operator.
  | (EventBase & { type: 'ModelPriceSet'; model: string; usdPerMillion: UsdPerMillion; setBy: string })
  // The org's own price for the model is gone: the default, if any, applies again.
  | (EventBase & { type: 'ModelPriceRemoved'; model: string; removedBy: string })
  | MembershipEvent;

// People belong to orgs (person ids from the person stream). Removing a person ends every sandbox
// token they minted (spec 002, Authentication 6): the API checks membership live.
export type MembershipEvent =
  | (EventBase & { type: 'MemberAdded'; personId: string; role: Role })
  | (EventBase & { type: 'MemberRemoved'; personId: string })
  | (EventBase & {
      type: 'InvitationCreated';
      invitationId: string;
      /** Normalized (domain/people/credentials.ts); only that person may accept. */
      email: string;
      role: Role;
      /** SHA-256 of the secret in the invitation link; the link is shown once to the owner. */
      secretHash: string;
      invitedBy: string;
      expiresAt: Date;
    })
  | (EventBase & { type: 'InvitationAccepted'; invitationId: string; personId: string })
  | (EventBase & { type: 'InvitationRevoked'; invitationId: string });

export type OrgEventType = OrgEvent['type'];
