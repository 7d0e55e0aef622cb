import { createHash, timingSafeEqual } from 'node:crypto';

// The shared secret between API replicas and sandbox hosts (ORRERY_HOST_SECRET), sent as a bearer
// token each way. Compared as SHA-256 digests in constant time, so neither its length nor its
// first differing byte shows in how long a refusal takes.

const digest = (text: string) => createHash('sha256').update(text).digest();

/** The `authorization` header a platform process sends another. */
export const hostAuthorization = (secret: string) => `Bearer ${secret}`;

/** Whether a request's `authorization` header carries the secret. */
export function carriesHostSecret(authorization: string | undefined, secret: string): boolean {
  const presented = authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : '';
  return timingSafeEqual(digest(presented), digest(secret));
}
