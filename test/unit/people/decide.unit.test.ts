import { describe, expect, it } from 'vitest';
import { emailField, normalizeEmail, passwordField } from '../../../domain/people/credentials.ts';
import { decide, type PersonCommand, PersonCommandRefused } from '../../../domain/people/decide.ts';
import type { PersonEvent } from '../../../domain/people/events.ts';
import { evolve, type MaybePerson } from '../../../domain/people/person.ts';

const now = new Date('2026-11-22T10:00:00Z');
const later = new Date('2026-11-23T10:00:00Z');
const meta = { eventId: 'e1', personId: 'person_1', now };
const signUp: PersonCommand = {
  ...meta,
  type: 'SignUp',
  email: 'ada@example.com',
  name: 'Ada',
  passwordHash: '$argon2id$first',
};
const change: PersonCommand = {
  ...meta,
  now: later,
  type: 'ChangePassword',
  passwordHash: '$argon2id$second',
};
const apply = (state: MaybePerson, command: PersonCommand) => decide(command, state).reduce(evolve, state);

function refusal(command: PersonCommand, state: MaybePerson): string | undefined {
  try {
    decide(command, state);
    return undefined;
  } catch (error) {
    if (error instanceof PersonCommandRefused) return error.code;
    throw error;
  }
}

describe('person decider', () => {
  it('signs a person up once', () => {
    expect(decide(signUp, undefined)).toEqual([
      {
        type: 'PersonSignedUp',
        eventId: 'e1',
        personId: 'person_1',
        occurredAt: now,
        email: 'ada@example.com',
        name: 'Ada',
        passwordHash: '$argon2id$first',
      },
    ]);
    expect(apply(undefined, signUp)).toEqual({
      personId: 'person_1',
      email: 'ada@example.com',
      name: 'Ada',
      passwordHash: '$argon2id$first',
      signedUpAt: now,
    });
    expect(refusal(signUp, apply(undefined, signUp))).toBe('person_exists');
  });

  it('changes the password of a person, and only of one who exists', () => {
    const ada = apply(undefined, signUp);
    expect(decide(change, ada)).toEqual([
      {
        type: 'PasswordChanged',
        eventId: 'e1',
        personId: 'person_1',
        occurredAt: later,
        passwordHash: '$argon2id$second',
      },
    ]);
    expect(apply(ada, change)).toEqual({ ...ada, passwordHash: '$argon2id$second' });
    expect(refusal(change, undefined)).toBe('person_not_found');
  });
});

describe('person evolve', () => {
  const signedUp: PersonEvent = {
    type: 'PersonSignedUp',
    eventId: 'e1',
    personId: 'person_1',
    occurredAt: now,
    email: 'ada@example.com',
    name: 'Ada',
    passwordHash: '$argon2id$first',
  };

  it('keeps the first sign-up when one is delivered again', () => {
    const ada = evolve(undefined, signedUp);
    expect(evolve(ada, { ...signedUp, name: 'Someone else', occurredAt: later })).toBe(ada);
  });

  it('ignores a password change for no one', () => {
    expect(
      evolve(undefined, {
        type: 'PasswordChanged',
        eventId: 'e',
        personId: 'p',
        occurredAt: now,
        passwordHash: 'h',
      }),
    ).toBeUndefined();
  });
});

describe('credentials', () => {
  it('compares emails without case or surrounding space', () => {
    expect(normalizeEmail('  Ada@Example.COM ')).toBe('ada@example.com');
    expect(emailField.parse(' Ada@Example.com')).toBe('ada@example.com');
    expect(emailField.safeParse('not an email').success).toBe(false);
  });

  it('wants a password of 10 to 256 characters, any of them', () => {
    expect(passwordField.safeParse('123456789').success).toBe(false);
    expect(passwordField.safeParse('correct horse').success).toBe(true);
    expect(passwordField.safeParse('x'.repeat(257)).success).toBe(false);
  });
});
