import { hash, randomBytes } from 'node:crypto';

// An invitation travels as one opaque string in a link the owner passes on: the org, the
// invitation, and a secret of which the org stream keeps only the SHA-256.
//
//   oinv_<org id>.<invitation id>.<secret>

const prefix = 'oinv_';
const shape = /^oinv_([A-Za-z0-9_]+)\.([A-Za-z0-9_]+)\.([A-Za-z0-9_-]{32,})$/;

export interface InvitationSecret {
  orgId: string;
  invitationId: string;
  secretHash: string;
}

export const hashInvitationSecret = (secret: string) => hash('sha256', secret, 'hex');

export function newInvitationToken(
  orgId: string,
  invitationId: string,
): { token: string; secretHash: string } {
  const secret = randomBytes(24).toString('base64url');
  return { token: `${prefix}${orgId}.${invitationId}.${secret}`, secretHash: hashInvitationSecret(secret) };
}

export function parseInvitationToken(token: string): InvitationSecret | undefined {
  const match = shape.exec(token);
  if (!match) return undefined;
  const [, orgId = '', invitationId = '', secret = ''] = match;
  return { orgId, invitationId, secretHash: hashInvitationSecret(secret) };
}

/** Where the dashboard opens an invitation (the path its router serves). */
export function invitationLink(origin: string, token: string): string {
  return `${origin}/invitations/${encodeURIComponent(token)}`;
}
