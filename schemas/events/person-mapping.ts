import type { PersonEvent } from '../../domain/people/events.ts';
import { text, type Wire, whole } from './wire.ts';

// PersonEvent (domain) <-> orrery.person.v1.PersonEvent (protobuf, camelCase as protobufjs reads it).

export function personEventToWire(event: PersonEvent): Record<string, unknown> {
  const envelope = {
    eventId: event.eventId,
    personId: event.personId,
    occurredAtMs: event.occurredAt.getTime(),
  };
  switch (event.type) {
    case 'PersonSignedUp': {
      const { email, name, passwordHash } = event;
      return { ...envelope, personSignedUp: { email, name, passwordHash } };
    }
    case 'PasswordChanged':
      return { ...envelope, passwordChanged: { passwordHash: event.passwordHash } };
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}

/** Decoded values come from `decodeValue` (oneofs set, longs as strings). Unknown kinds: undefined. */
export function personEventFromWire(wire: Wire): PersonEvent | undefined {
  const base = {
    eventId: text(wire.eventId),
    personId: text(wire.personId),
    occurredAt: new Date(whole(wire.occurredAtMs)),
  };
  const body = (wire[String(wire.event)] ?? {}) as Wire;
  switch (wire.event) {
    case 'personSignedUp':
      return {
        ...base,
        type: 'PersonSignedUp',
        email: text(body.email),
        name: text(body.name),
        passwordHash: text(body.passwordHash),
      };
    case 'passwordChanged':
      return { ...base, type: 'PasswordChanged', passwordHash: text(body.passwordHash) };
    default:
      return undefined;
  }
}
