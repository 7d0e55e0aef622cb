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
  | (EventBase & { type: 'TracingEnabled' });

export type OrgEventType = OrgEvent['type'];
