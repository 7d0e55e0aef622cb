import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  alwaysDeniedRange,
  defaultNetwork,
  networkPolicyBody,
  networkRuleLimit,
  parseNetworkRule,
} from '../../../domain/sandboxes/network.ts';
import { parseSandboxBody } from '../../../domain/sandboxes/parse.ts';
import { firewallRuleset } from '../../../sandbox-runtime/network.ts';

const body = z.strictObject({ network: networkPolicyBody });
const refused = (network: unknown) => {
  const parsed = parseSandboxBody(body, { network });
  return parsed.ok ? undefined : { param: parsed.param, message: parsed.message };
};

describe('a network rule', () => {
  it('is a CIDR in its canonical form, an address as a /32 or /128, or a host name in lower case', () => {
    expect(parseNetworkRule('203.0.113.7/24')).toEqual({
      ok: true,
      value: { kind: 'cidr', family: 'ipv4', cidr: '203.0.113.0/24' },
    });
    expect(parseNetworkRule('198.51.100.80')).toMatchObject({
      ok: true,
      value: { cidr: '198.51.100.80/32' },
    });
    expect(parseNetworkRule('2001:db8::1/32')).toMatchObject({ ok: true, value: { cidr: '2001:db8::/32' } });
    expect(parseNetworkRule('Docs.Example.COM.')).toEqual({
      ok: true,
      value: { kind: 'host', name: 'docs.example.com' },
    });
  });

  it('refuses what is neither, naming what to send', () => {
    for (const text of [
      '1.2.3',
      'not a rule',
      'a..b',
      'localhost',
      '-x.example',
      '203.0.113.0/33',
      'x/8',
      '',
    ]) {
      expect(parseNetworkRule(text)).toMatchObject({
        ok: false,
        message: expect.stringContaining('send a CIDR'),
      });
    }
  });

  it('knows the ranges no sandbox reaches: the metadata address among them', () => {
    expect(alwaysDeniedRange('169.254.169.254/32')?.cidr).toBe('169.254.0.0/16');
    expect(alwaysDeniedRange('10.1.0.0/16')?.cidr).toBe('10.0.0.0/8');
    expect(alwaysDeniedRange('fd00::2/128')?.cidr).toBe('fc00::/7');
    expect(alwaysDeniedRange('198.51.100.80/32')).toBeUndefined();
  });
});

describe('the network field of a sandbox body', () => {
  it('defaults to the open internet', () => {
    expect(networkPolicyBody.parse({})).toEqual(defaultNetwork);
    expect(defaultNetwork).toEqual({ egress: 'open', allow: [], deny: [] });
  });

  it('names the entry at fault: network.allow[3]', () => {
    expect(refused({ allow: ['example.com', '203.0.113.0/24', 'docs.example.org', 'no way'] })).toEqual({
      param: 'network.allow[3]',
      message: expect.stringContaining('send a CIDR'),
    });
  });

  it('refuses more than 100 entries in a list, an allow entry never reachable, and allow with egress none', () => {
    const many = Array.from({ length: networkRuleLimit + 1 }, (_, index) => `203.0.113.${index}`);
    expect(refused({ deny: many })?.param).toBe('network.deny');
    expect(refused({ allow: ['169.254.169.254'] })).toEqual({
      param: 'network.allow[0]',
      message: expect.stringContaining('never reachable from a sandbox'),
    });
    expect(refused({ egress: 'none', allow: ['example.com'] })?.param).toBe('network.allow');
    expect(refused({ egress: 'closed' })?.param).toBe('network.egress');
    expect(refused({ egress: 'open', extra: true })?.param).toBe('network.extra');
  });
});

describe("the sandbox's firewall", () => {
  const host = ['192.0.2.2/32', '127.0.0.1/32', 'fd00::2/128'];

  it('refuses the always-denied ranges and the host, lets DNS to the forwarder through, and merges overlaps', () => {
    const rules = firewallRuleset(defaultNetwork, {
      deny: ['203.0.113.0/24', '203.0.113.9/32'],
      allow: [],
      host,
    });
    expect(rules).toContain('ip daddr 10.0.2.3 udp dport 53 accept');
    expect(rules).toMatch(
      /set denied4 \{[^}]*elements = \{[^}]*10\.0\.0\.0\/8[^}]*192\.0\.2\.2\/32[^}]*203\.0\.113\.0\/24/,
    );
    expect(rules).not.toContain('127.0.0.1/32'); // inside 127.0.0.0/8 already
    expect(rules).not.toContain('203.0.113.9/32');
    expect(rules).not.toContain('!= @allowed4');
    expect(rules.indexOf('udp dport 53 accept')).toBeLessThan(rules.indexOf('@denied4 reject'));
  });

  it('narrows to the allow list when there is one, and refuses everything for egress none', () => {
    const narrowed = firewallRuleset(
      { egress: 'open', allow: ['198.51.100.80/32'], deny: [] },
      {
        deny: [],
        allow: ['198.51.100.80/32'],
        host,
      },
    );
    expect(narrowed).toContain('ip daddr != @allowed4 reject');
    expect(narrowed).toMatch(/set allowed4 \{[^}]*198\.51\.100\.80\/32/);
    expect(firewallRuleset({ egress: 'none', allow: [], deny: [] }, { deny: [], allow: [], host })).toMatch(
      /\n {4}reject\n/,
    );
  });
});
