import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import type { Checked } from './checked.ts';

// A sandbox's network (issue 48): outbound TCP, UDP and DNS to the internet, or nothing. What is
// never reachable, whatever the policy says, is one table (`alwaysDenied`): the host's and other
// sandboxes' addresses live in those ranges or are added by the host (sandbox-runtime/network.ts).
// `allow` narrows the open internet to what it names; `deny` takes more away. As E2B's network
// rules and Daytona's network lists: CIDRs and host names, the names resolved when the policy is
// applied (at start, update and restart), since a firewall holds addresses, not names.

export const egressModes = ['open', 'none'] as const;
export type Egress = (typeof egressModes)[number];

export interface NetworkPolicy {
  egress: Egress;
  /** When not empty, only these are reachable (and DNS). */
  allow: string[];
  deny: string[];
}

export const defaultNetwork: NetworkPolicy = { egress: 'open', allow: [], deny: [] };

/**
 * What a sandbox made before sandboxes had a network has: loopback only. Events and records from
 * then carry no policy and are read as this, never as open, since that is what those sandboxes had.
 */
export const noNetwork: NetworkPolicy = { egress: 'none', allow: [], deny: [] };

/** The same policy: egress and both lists, entry for entry in order (lists are shown as sent). */
export function sameNetwork(a: NetworkPolicy, b: NetworkPolicy): boolean {
  const sameList = (x: readonly string[], y: readonly string[]) =>
    x.length === y.length && x.every((entry, i) => entry === y[i]);
  return a.egress === b.egress && sameList(a.allow, b.allow) && sameList(a.deny, b.deny);
}

/** Entries per list (`allow`, `deny`). */
export const networkRuleLimit = 100;

/** Never reachable from a sandbox: the host, private networks, link-local, other sandboxes. */
export const alwaysDenied = [
  { cidr: '0.0.0.0/8', what: '"this network"' },
  { cidr: '10.0.0.0/8', what: 'a private network (RFC 1918)' },
  { cidr: '100.64.0.0/10', what: 'carrier-grade NAT space (RFC 6598)' },
  { cidr: '127.0.0.0/8', what: 'loopback' },
  { cidr: '169.254.0.0/16', what: 'link-local, where cloud metadata (169.254.169.254) answers' },
  { cidr: '172.16.0.0/12', what: 'a private network (RFC 1918)' },
  { cidr: '192.168.0.0/16', what: 'a private network (RFC 1918)' },
  { cidr: '224.0.0.0/4', what: 'multicast' },
  { cidr: '240.0.0.0/4', what: 'reserved space and broadcast' },
  { cidr: '::/127', what: 'loopback and the unspecified address' },
  { cidr: '::ffff:0:0/96', what: 'IPv4-mapped addresses' },
  { cidr: 'fc00::/7', what: 'a unique local network (RFC 4193)' },
  { cidr: 'fe80::/10', what: 'link-local' },
  { cidr: 'ff00::/8', what: 'multicast' },
] as const;

export type NetworkRule =
  | { kind: 'cidr'; family: 'ipv4' | 'ipv6'; cidr: string }
  | { kind: 'host'; name: string };

const ruleHint = 'send a CIDR (203.0.113.0/24, 2001:db8::/32), an IP address or a host name (example.com)';

/** A CIDR or an address (taken as a /32 or /128), in its network's canonical form; or a host name. */
export function parseNetworkRule(text: string): Checked<NetworkRule> {
  const trimmed = text.trim();
  const [address = '', prefix, ...extra] = trimmed.split('/');
  const family = ipaddr.IPv4.isValidFourPartDecimal(address)
    ? 'ipv4'
    : ipaddr.IPv6.isValid(address)
      ? 'ipv6'
      : undefined;
  if (family !== undefined && extra.length === 0) {
    const bits = prefix === undefined ? (family === 'ipv4' ? 32 : 128) : Number(prefix);
    const max = family === 'ipv4' ? 32 : 128;
    if (prefix !== undefined && !/^\d{1,3}$/.test(prefix))
      return { ok: false, message: `${ruleHint}: the prefix is 0 to ${max}` };
    if (bits > max) return { ok: false, message: `${ruleHint}: the prefix is 0 to ${max}` };
    const network =
      family === 'ipv4'
        ? ipaddr.IPv4.networkAddressFromCIDR(`${address}/${bits}`)
        : ipaddr.IPv6.networkAddressFromCIDR(`${address}/${bits}`);
    return { ok: true, value: { kind: 'cidr', family, cidr: `${network.toString()}/${bits}` } };
  }
  const name = trimmed.toLowerCase().replace(/\.$/, '');
  const labels = name.split('.');
  const label = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
  const hostName =
    name.length <= 253 &&
    labels.length >= 2 &&
    labels.every((part) => label.test(part)) &&
    !/^\d+$/.test(labels.at(-1)!);
  return hostName ? { ok: true, value: { kind: 'host', name } } : { ok: false, message: ruleHint };
}

/** The always-denied range an address or CIDR falls in, if any. */
export function alwaysDeniedRange(cidr: string): (typeof alwaysDenied)[number] | undefined {
  const [address] = ipaddr.parseCIDR(cidr);
  return alwaysDenied.find((range) => {
    const parsed = ipaddr.parseCIDR(range.cidr);
    return parsed[0].kind() === address.kind() && address.match(parsed);
  });
}

/** An `allow` entry may not name what is never reachable: it would read as a promise. */
function parseAllowRule(text: string): Checked<NetworkRule> {
  const rule = parseNetworkRule(text);
  if (!rule.ok || rule.value.kind !== 'cidr') return rule;
  const denied = alwaysDeniedRange(rule.value.cidr);
  return denied === undefined
    ? rule
    : {
        ok: false,
        message: `${rule.value.cidr} is ${denied.what} (${denied.cidr}), never reachable from a sandbox`,
      };
}

function ruleList(parse: (text: string) => Checked<NetworkRule>) {
  return z
    .array(
      z.string().transform((text, ctx): string => {
        const rule = parse(text);
        if (rule.ok) return rule.value.kind === 'cidr' ? rule.value.cidr : rule.value.name;
        ctx.issues.push({ code: 'custom', message: rule.message, input: text });
        return z.NEVER;
      }),
    )
    .max(networkRuleLimit, `send at most ${networkRuleLimit} entries`);
}

/** The `network` field of a create or update body, in wire names. */
export const networkPolicyBody = z
  .strictObject({
    egress: z.enum(egressModes).default('open'),
    allow: ruleList(parseAllowRule).default([]),
    deny: ruleList(parseNetworkRule).default([]),
  })
  .refine((policy) => policy.egress === 'open' || policy.allow.length === 0, {
    message: "egress 'none' reaches nothing: an allow list needs egress 'open'",
    path: ['allow'],
  });

/** The rules as the host applies them: addresses and ranges, and names still to resolve. */
export function rulesOf(entries: readonly string[]): NetworkRule[] {
  return entries.map((entry) => {
    const rule = parseNetworkRule(entry);
    if (!rule.ok) throw new Error(`a stored network rule does not parse: ${entry}`);
    return rule.value;
  });
}
