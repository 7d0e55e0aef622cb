import { hash, randomBytes } from 'node:crypto';

// API keys: `orr_` and 192 random bits, shown once. Only their SHA-256 is published and stored
// (a key has full entropy, so a fast hash is right, unlike a password), and a prefix for lists.

// The one-shot hash: a Hash object per request costs the garbage collector a weak handle.
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export interface NewApiKey {
  key: string;
  keyHash: string;
  keyPrefix: string;
}

export function newApiKey(): NewApiKey {
  const key = `orr_${randomBytes(24).toString('base64url')}`;
  return { key, keyHash: hashApiKey(key), keyPrefix: key.slice(0, 10) };
}
