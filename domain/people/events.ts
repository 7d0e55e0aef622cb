// The person stream's facts (topic orrery.person.v1, keyed by person id), in the past tense. A
// person exists apart from any org; belonging to one is a fact of the org's stream (MemberAdded).
// Their protobuf form is schemas/events/person.proto.

interface EventBase {
  eventId: string;
  personId: string;
  occurredAt: Date;
}

export type PersonEvent =
  | (EventBase & {
      type: 'PersonSignedUp';
      /** Normalized (./credentials.ts): the login name, unique across people. */
      email: string;
      name: string;
      /** An argon2id PHC string; the password itself is never published or stored. */
      passwordHash: string;
    })
  | (EventBase & { type: 'PasswordChanged'; passwordHash: string });

export type PersonEventType = PersonEvent['type'];
