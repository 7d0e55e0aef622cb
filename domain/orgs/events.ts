// The org stream's facts (topic orrery.org.v1), in the past tense. Their protobuf form is
// schemas/events/org.proto; producers/org.ts and projections/org.ts map between the two.

export const scopes = ['inference:invoke', 'traces:write', 'sandboxes:write'] as const;
export type Scope = (typeof scopes)[number];

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
    })
  | (EventBase & { type: 'ApiKeyRevoked'; keyId: string })
  | (EventBase & { type: 'CreditGranted'; grantId: string; amountCents: number; reason: string })
  | (EventBase & { type: 'TracingEnabled' })
  // A day's charge for one model (spec 000, Billing rules): posted by jobs/post-charges.ts, in
  // integer cents; `chargeId` is derived from what it charges, so posting it twice is one charge.
  | (EventBase & { type: 'ChargePosted'; chargeId: string; model: string; day: string; cents: number });

export type OrgEventType = OrgEvent['type'];
