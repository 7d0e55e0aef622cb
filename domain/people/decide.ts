import type { PersonEvent } from './events.ts';
import type { MaybePerson } from './person.ts';

// Commands on a person (Emmett's decider shape). The password arrives already hashed and the
// email already normalized and claimed (stores/people.ts keeps one person per email), so the
// decision is pure.

interface CommandMeta {
  eventId: string;
  personId: string;
  now: Date;
}

export type PersonCommand =
  | (CommandMeta & { type: 'SignUp'; email: string; name: string; passwordHash: string })
  | (CommandMeta & { type: 'ChangePassword'; passwordHash: string });

export class PersonCommandRefused extends Error {
  constructor(
    readonly code: 'person_exists' | 'person_not_found',
    message: string,
  ) {
    super(message);
  }
}

const base = (command: CommandMeta) => ({
  eventId: command.eventId,
  personId: command.personId,
  occurredAt: command.now,
});

export function decide(command: PersonCommand, state: MaybePerson): PersonEvent[] {
  switch (command.type) {
    case 'SignUp': {
      if (state)
        throw new PersonCommandRefused('person_exists', `Person ${command.personId} already exists.`);
      const { email, name, passwordHash } = command;
      return [{ ...base(command), type: 'PersonSignedUp', email, name, passwordHash }];
    }
    case 'ChangePassword':
      if (!state) throw new PersonCommandRefused('person_not_found', `No person ${command.personId}.`);
      return [{ ...base(command), type: 'PasswordChanged', passwordHash: command.passwordHash }];
    default: {
      const unhandled: never = command;
      return unhandled;
    }
  }
}
