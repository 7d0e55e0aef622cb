import { hash, verify } from '@node-rs/argon2';

// Passwords are hashed with argon2id (memory-hard; OWASP's first choice) by @node-rs/argon2, at
// its defaults (19 MiB, 2 passes, OWASP's minimum), off the event loop. Only the PHC string is
// published (PersonSignedUp) and stored.

export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

// Checked when no person has the email, so an unknown email takes as long as a wrong password
// and the answer's timing does not tell which emails have accounts.
const unknownPersonHash = hash('no person has this password');

/** Whether the password matches; `undefined` (no such person) is checked against a stand-in. */
export async function passwordMatches(passwordHash: string | undefined, password: string): Promise<boolean> {
  if (passwordHash === undefined) {
    await verify(await unknownPersonHash, password);
    return false;
  }
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}
