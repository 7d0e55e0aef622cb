import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  decodeSandboxToken,
  encodeSandboxToken,
  isSandboxToken,
  sandboxTokenCodec,
} from '../../../api/auth/sandbox-tokens.ts';
import type { SandboxTokenPayload } from '../../../domain/sandboxes/tokens.ts';

// The token's wire form (api/auth/sandbox-tokens.ts): `ost_<base64url payload>.<base64url HMAC>`.

const secret = 'a-test-secret-of-at-least-32-characters';
const payload: SandboxTokenPayload = {
  sandboxId: 'sbx_0123456789abcdef01234567',
  orgId: 'org_1',
  minter: { kind: 'key', keyId: 'key_1' },
  abilities: ['view'],
  origins: ['https://app.example.com', 'http://localhost:3000'],
  expiresAt: new Date('2026-11-22T10:15:00.123Z'),
};

const flip = (text: string, at: number) =>
  text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);

describe('sandbox tokens', () => {
  it('round-trips every field, to the millisecond', () => {
    const token = encodeSandboxToken(secret, payload);
    expect(decodeSandboxToken(secret, token)).toEqual(payload);
    const control = { ...payload, abilities: ['control'] as ['control'], origins: [] };
    expect(decodeSandboxToken(secret, encodeSandboxToken(secret, control))).toEqual(control);
  });

  it('carries a person as the minter when a dashboard session minted it, and refuses a payload naming both or neither', () => {
    const byPerson = { ...payload, minter: { kind: 'person' as const, personId: 'person_1' } };
    expect(decodeSandboxToken(secret, encodeSandboxToken(secret, byPerson))).toEqual(byPerson);
    const signedPayload = (fields: Record<string, unknown>) => {
      const signed = `ost_${Buffer.from(JSON.stringify({ v: 1, s: 'sbx_1', o: 'org_1', a: 'view', g: [], e: 1, ...fields })).toString('base64url')}`;
      return `${signed}.${createHmac('sha256', secret).update(signed).digest('base64url')}`;
    };
    expect(decodeSandboxToken(secret, signedPayload({ k: 'key_1' }))?.minter).toEqual({
      kind: 'key',
      keyId: 'key_1',
    });
    expect(decodeSandboxToken(secret, signedPayload({ k: 'key_1', p: 'person_1' }))).toBeUndefined();
    expect(decodeSandboxToken(secret, signedPayload({}))).toBeUndefined();
  });

  it('is compact: the prefix, URL-safe characters, no padding, under 400 characters', () => {
    const token = encodeSandboxToken(secret, payload);
    expect(token).toMatch(/^ost_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(token.length).toBeLessThan(400);
    expect(isSandboxToken(token)).toBe(true);
    expect(isSandboxToken('orr_an-api-key')).toBe(false);
  });

  it('signs the prefixed payload with HMAC-SHA256', () => {
    const token = encodeSandboxToken(secret, payload);
    const [signed, signature] = token.split('.') as [string, string];
    expect(signature).toBe(createHmac('sha256', secret).update(signed).digest('base64url'));
  });

  it('refuses a token signed with another secret', () => {
    const token = encodeSandboxToken('another-secret-of-at-least-32-characters', payload);
    expect(decodeSandboxToken(secret, token)).toBeUndefined();
  });

  it('refuses any altered character, in the payload or in the signature', () => {
    const token = encodeSandboxToken(secret, payload);
    const everySignatureCharacter = Array.from({ length: 43 }, (_, i) => token.indexOf('.') + 1 + i);
    for (const at of [4, 10, token.indexOf('.') - 1, ...everySignatureCharacter]) {
      expect(decodeSandboxToken(secret, flip(token, at))).toBeUndefined();
    }
  });

  it('refuses a payload changed and re-encoded without the secret (a widened ability)', () => {
    const token = encodeSandboxToken(secret, payload);
    const [signed, signature] = token.split('.') as [string, string];
    const json = JSON.parse(Buffer.from(signed.slice(4), 'base64url').toString());
    const widened = Buffer.from(JSON.stringify({ ...json, a: 'control' })).toString('base64url');
    expect(decodeSandboxToken(secret, `ost_${widened}.${signature}`)).toBeUndefined();
  });

  it('refuses malformed tokens: truncated, no signature, empty parts, wrong prefix, not JSON', () => {
    const token = encodeSandboxToken(secret, payload);
    const notJson = `ost_${Buffer.from('not json').toString('base64url')}`;
    const signedNotJson = `${notJson}.${createHmac('sha256', secret).update(notJson).digest('base64url')}`;
    const wrongShape = `ost_${Buffer.from('{"v":2}').toString('base64url')}`;
    const signedWrongShape = `${wrongShape}.${createHmac('sha256', secret).update(wrongShape).digest('base64url')}`;
    for (const bad of [
      token.slice(0, -1),
      token.slice(0, token.indexOf('.')),
      `${token.slice(0, token.indexOf('.'))}.`,
      'ost_.',
      'ost_',
      token.replace(/^ost_/, 'osx_'),
      `${token}.extra`,
      signedNotJson,
      signedWrongShape,
    ]) {
      expect(decodeSandboxToken(secret, bad)).toBeUndefined();
    }
  });

  it('leaves expiry to the domain: an expired token still decodes, for checkToken to refuse', () => {
    const expired = { ...payload, expiresAt: new Date(0) };
    expect(decodeSandboxToken(secret, encodeSandboxToken(secret, expired))?.expiresAt).toEqual(new Date(0));
  });

  it('a codec holds its secret', () => {
    const codec = sandboxTokenCodec(secret);
    expect(codec.decode(codec.encode(payload))).toEqual(payload);
    expect(sandboxTokenCodec(`${secret}!`).decode(codec.encode(payload))).toBeUndefined();
  });
});
