import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { abilities, type Minter, type SandboxTokenPayload } from '../../domain/sandboxes/tokens.ts';

// Sandbox tokens on the wire (spec, "Authentication" 3 to 8): what domain/sandboxes/tokens.ts
// decides, carried as a compact signed string so the API needs nothing stored to check one:
//
//   ost_<payload>.<signature>
//
// - `payload`: base64url (no padding) of the JSON `{ v: 1, s: sandbox id, o: org id, k: minting
//   key id | p: minting person id, a: 'view' | 'control', g: [origins], e: expiry in epoch
//   milliseconds }`;
// - `signature`: base64url of HMAC-SHA256 over `ost_<payload>` with the server's secret
//   (ORRERY_TOKEN_SECRET), compared in constant time.
//
// The prefix tells a token from an API key (`orr_…`) before any lookup. Revocation is not a
// property of the token: the minting key, or the minting person's membership, is looked up live
// on every request (OrgDirectory).

export const sandboxTokenPrefix = 'ost_';

const payloadSchema = z.object({
  v: z.literal(1),
  s: z.string().min(1),
  o: z.string().min(1),
  k: z.string().min(1).optional(),
  p: z.string().min(1).optional(),
  a: z.enum(abilities),
  g: z.array(z.string()),
  e: z.number().int().nonnegative(),
});

const base64url = /^[A-Za-z0-9_-]+$/;

function sign(secret: string, signed: string): Buffer {
  return createHmac('sha256', secret).update(signed).digest();
}

export function isSandboxToken(bearer: string): boolean {
  return bearer.startsWith(sandboxTokenPrefix);
}

export function encodeSandboxToken(secret: string, token: SandboxTokenPayload): string {
  const payload = {
    v: 1,
    s: token.sandboxId,
    o: token.orgId,
    ...(token.minter.kind === 'key' ? { k: token.minter.keyId } : { p: token.minter.personId }),
    a: token.abilities[0],
    g: token.origins,
    e: token.expiresAt.getTime(),
  };
  const signed = `${sandboxTokenPrefix}${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  return `${signed}.${sign(secret, signed).toString('base64url')}`;
}

/** The token's payload when its signature is ours; undefined for anything else. Expiry is checked by `checkToken`. */
export function decodeSandboxToken(secret: string, token: string): SandboxTokenPayload | undefined {
  if (!isSandboxToken(token)) return undefined;
  const dot = token.lastIndexOf('.');
  const signed = token.slice(0, dot);
  const signature = token.slice(dot + 1);
  const payload = signed.slice(sandboxTokenPrefix.length);
  if (dot < 0 || !base64url.test(payload) || !base64url.test(signature)) return undefined;
  // Compared as text, so exactly one string verifies (base64url's last character has spare bits).
  const expected = Buffer.from(sign(secret, signed).toString('base64url'));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = payloadSchema.safeParse(json);
  if (!parsed.success) return undefined;
  const { s, o, k, p, a, g, e } = parsed.data;
  // Exactly one minter: a payload naming both or neither is not one we signed.
  if ((k === undefined) === (p === undefined)) return undefined;
  const minter: Minter = k !== undefined ? { kind: 'key', keyId: k } : { kind: 'person', personId: p! };
  return { sandboxId: s, orgId: o, minter, abilities: [a], origins: g, expiresAt: new Date(e) };
}

/** Signs and checks with one secret; the API holds one, made from config. */
export interface SandboxTokenCodec {
  encode(token: SandboxTokenPayload): string;
  decode(token: string): SandboxTokenPayload | undefined;
}

export function sandboxTokenCodec(secret: string): SandboxTokenCodec {
  return {
    encode: (token) => encodeSandboxToken(secret, token),
    decode: (token) => decodeSandboxToken(secret, token),
  };
}
