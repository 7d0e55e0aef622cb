import { z } from 'zod';

// What a person types to sign up and log in, parsed once at the edge.

/** Email addresses compare without case or surrounding space: one person per mailbox. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * NIST SP 800-63B: at least 8 characters (we ask 10), every printable character and space
 * allowed, no composition rules; a long cap so a hash request cannot be made arbitrarily costly.
 */
export const passwordLength = { min: 10, max: 256 } as const;

export const emailField = z
  .string()
  .max(254)
  .transform(normalizeEmail)
  .pipe(z.email({ message: 'must be an email address such as ada@example.com' }));

export const passwordField = z
  .string()
  .min(passwordLength.min, { message: `must be at least ${passwordLength.min} characters` })
  .max(passwordLength.max, { message: `must be at most ${passwordLength.max} characters` });

export const personName = z.string().trim().min(1).max(100);

/**
 * Login attempts allowed before 429 (OWASP's credential-stuffing defences): per address, and per
 * account whatever the address, each in a window that starts with its first attempt.
 */
export const loginAttemptLimits = {
  perAddress: { max: 30, windowMs: 60_000 },
  perAccount: { max: 10, windowMs: 15 * 60_000 },
} as const;
