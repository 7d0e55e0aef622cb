import { describe, expect, it } from 'vitest';
import {
  fieldOf,
  inOrg,
  loginPath,
  orgPath,
  safeNext,
  sessionPath,
  signupPath,
  tracePath,
  userPath,
} from '../src/paths.ts';

describe('safeNext', () => {
  it('keeps a path of this site, with its query', () => {
    expect(safeNext('/orgs/org_1/settings/members')).toBe('/orgs/org_1/settings/members');
    expect(safeNext('/device?code=WDJB-MJHT')).toBe('/device?code=WDJB-MJHT');
  });

  it('sends anything that would leave the site, or nothing, home', () => {
    for (const next of [
      '//evil.example/x',
      '/\\evil.example',
      'https://evil.example',
      'javascript:alert(1)',
      '',
      null,
      undefined,
    ])
      expect(safeNext(next)).toBe('/');
  });
});

it('loginPath comes back to where the person was', () => {
  expect(loginPath('/device?code=WDJB-MJHT')).toBe('/login?next=%2Fdevice%3Fcode%3DWDJB-MJHT');
  expect(safeNext(new URLSearchParams(loginPath('/a?b=c').split('?')[1]).get('next'))).toBe('/a?b=c');
  expect(loginPath('/')).toBe('/login');
});

it('signupPath goes on to where the person was going', () => {
  expect(signupPath('/device?code=WDJB-MJHT')).toBe('/signup?next=%2Fdevice%3Fcode%3DWDJB-MJHT');
  expect(signupPath('/')).toBe('/signup');
});

it("orgPath names an org's page, its id escaped", () => {
  expect(orgPath('org_1', '/settings')).toBe('/orgs/org_1/settings');
  expect(orgPath('a/b')).toBe('/orgs/a%2Fb');
});

it('inOrg keeps the page and changes the org', () => {
  expect(inOrg('/orgs/org_a/settings/keys', 'org_b')).toBe('/orgs/org_b/settings/keys');
  expect(inOrg('/orgs/org_a', 'org_b')).toBe('/orgs/org_b');
  expect(inOrg('/device', 'org_b')).toBe('/orgs/org_b/settings');
});

describe('fieldOf', () => {
  const fields = ['email', 'scopes', 'org_name'];

  it('names the field itself, or the field holding the param', () => {
    expect(fieldOf('email', fields)).toBe('email');
    expect(fieldOf('scopes[0]', fields)).toBe('scopes');
    expect(fieldOf('org_name', fields)).toBe('org_name');
  });

  it('names no field for a param the form lacks, or no param', () => {
    expect(fieldOf('invitation', fields)).toBeUndefined();
    expect(fieldOf('emails', fields)).toBeUndefined();
    expect(fieldOf(undefined, fields)).toBeUndefined();
  });
});

it('tracePath, sessionPath and userPath give each id one path segment of its page', () => {
  expect(tracePath('org_1', 'ab12')).toBe('/orgs/org_1/tracing/traces/ab12');
  expect(sessionPath('org_1', 'sess-42')).toBe('/orgs/org_1/tracing/sessions/sess-42');
  expect(sessionPath('org_1', 'chat/7 #2?x')).toBe('/orgs/org_1/tracing/sessions/chat%2F7%20%232%3Fx');
  expect(userPath('org_1', 'ada@example.com')).toBe('/orgs/org_1/tracing/users/ada%40example.com');
  expect(decodeURIComponent(userPath('org_1', 'ü/ser').split('/').at(-1)!)).toBe('ü/ser');
});
