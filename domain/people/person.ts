import type { PersonEvent } from './events.ts';

// A person as the decider sees them, folded from their events.

export interface PersonState {
  personId: string;
  email: string;
  name: string;
  passwordHash: string;
  signedUpAt: Date;
}

export type MaybePerson = PersonState | undefined;

export function evolve(state: MaybePerson, event: PersonEvent): MaybePerson {
  switch (event.type) {
    case 'PersonSignedUp':
      return (
        state ?? {
          personId: event.personId,
          email: event.email,
          name: event.name,
          passwordHash: event.passwordHash,
          signedUpAt: event.occurredAt,
        }
      );
    case 'PasswordChanged':
      return state && { ...state, passwordHash: event.passwordHash };
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}
