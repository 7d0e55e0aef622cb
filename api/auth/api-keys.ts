import { hash, randomBytes } from 'node:crypto';
import type { OrgCommand } from '../../domain/orgs/decide.ts';
import { newId } from '../../platform/ids.ts';

// API keys: `orr_` and 192 random bits, shown once. Only their SHA-256 is published and stored
// (a key has full entropy, so a fast hash is right, unlike a password), and a prefix for lists.

// The one-shot hash: a Hash object per request costs the garbage collector a weak handle.
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

type CreateApiKey = Extract<OrgCommand, { type: 'CreateApiKey' }>;

/**
 * A new key and the command that records it: the key itself is for the caller's answer, once;
 * the command carries only its hash and prefix.
 */
export function newApiKey(
  meta: Pick<CreateApiKey, 'eventId' | 'orgId' | 'now'>,
  fields: Pick<CreateApiKey, 'name' | 'scopes' | 'createdBy'>,
): { key: string; command: CreateApiKey } {
  const key = `orr_${randomBytes(24).toString('base64url')}`;
  const command: CreateApiKey = {
    ...meta,
    ...fields,
    type: 'CreateApiKey',
    keyId: newId('key'),
    keyHash: hashApiKey(key),
    keyPrefix: key.slice(0, 10),
  };
  return { key, command };
}
