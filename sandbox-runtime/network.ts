import { type ChildProcess, spawn } from 'node:child_process';
import { promises as dns } from 'node:dns';
import { writeFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import ipaddr from 'ipaddr.js';
import { alwaysDenied, type NetworkPolicy, type NetworkRule, rulesOf } from '../domain/sandboxes/network.ts';
import { RunFailed, runToEnd } from '../platform/run-to-end.ts';
import { joinDirs } from './cgroups.ts';
import { hostEnv, hostOutput, hostProgram, processLives } from './host.ts';
import { joinCgroupsArgv, signalGroup, startedOrKilled } from './process-tree.ts';
import type { SandboxRecord } from './state.ts';

// A sandbox's way out (issue 48). Its network namespace has only loopback until slirp4netns, a
// user-space TCP/IP stack from Debian's packages, gives it a tap device and carries its traffic
// out through sockets of its own in the host's network namespace (the sandbox never joins that
// namespace). Slirp's side is 10.0.2.0/24: the sandbox is 10.0.2.100, the gateway 10.0.2.2 (the
// host's loopback behind it is cut off: --disable-host-loopback) and 10.0.2.3 forwards DNS to the
// host's resolvers, or to ORRERY_SANDBOX_DNS. Slirp runs sandboxed (its own mount namespace, no
// capabilities but binding ports, its seccomp filter) and in the sandbox's cgroups, so it is
// frozen, limited and killed with the sandbox.
//
// The policy is a firewall (nftables) in the sandbox's own network namespace, written by the
// host's root: the sandbox's processes lack CAP_NET_ADMIN (confine.ts), so they cannot change it.
// Every packet a sandbox sends out is checked there: its loopback and the DNS forwarder pass; the
// always-denied ranges (domain/sandboxes/network.ts), the host's own addresses and `deny` are
// refused; with an `allow` list, everything else it does not name is refused too. `egress: none`
// starts no slirp at all: loopback only, as before there was a network.

export const slirp = { cidr: '10.0.2.0/24', sandbox: '10.0.2.100', dns: '10.0.2.3', mtu: 65520 } as const;

/** Where slirp's DNS forwarder sends queries: the host's resolvers unless the runtime names others. */
export interface EgressSettings {
  /** Resolver addresses (ORRERY_SANDBOX_DNS); also used to resolve a policy's host names. */
  dns?: readonly string[];
  /** A resolv.conf naming `dns`, made by the runtime (runtime.ts), bound over slirp's. */
  resolvConf?: string;
}

export interface EgressProcess {
  pid: number;
  startTime: string;
}

/** Starts the sandbox's way out as its policy says; answers slirp's process, or null for `none`. */
export async function startEgress(
  record: SandboxRecord,
  policy: NetworkPolicy,
  settings: EgressSettings,
): Promise<EgressProcess | null> {
  if (record.init === null) throw new Error(`sandbox ${record.id} has no init`);
  await applyFirewall(record.init.pid, policy, settings);
  if (policy.egress === 'none') return null;
  return startSlirp(record, settings);
}

/**
 * A new policy on a sandbox whose init runs: the firewall rewritten at once; slirp ended for
 * `none`, or started for `open` when `mayStart` (not while the sandbox is frozen: slirp would
 * freeze as it joins; lifecycle.ts `ensureEgress` starts it on resume).
 */
export async function changeEgress(
  record: SandboxRecord,
  policy: NetworkPolicy,
  settings: EgressSettings,
  mayStart: boolean,
): Promise<EgressProcess | null> {
  if (record.init === null) throw new Error(`sandbox ${record.id} has no init`);
  await applyFirewall(record.init.pid, policy, settings);
  const alive = egressAlive(record.egress) ? record.egress : null;
  if (policy.egress === 'none') {
    stopEgress(alive);
    return null;
  }
  return alive ?? (mayStart ? startSlirp(record, settings) : null);
}

export function egressAlive(running: EgressProcess | null): running is EgressProcess {
  return running !== null && processLives(running.pid, running.startTime);
}

export function stopEgress(running: EgressProcess | null): void {
  if (egressAlive(running)) signalGroup(running.pid, 'SIGKILL');
}

async function startSlirp(record: SandboxRecord, settings: EgressSettings): Promise<EgressProcess> {
  const initPid = String(record.init?.pid);
  const options = ['--configure', `--mtu=${slirp.mtu}`, '--disable-host-loopback', '--enable-sandbox'];
  const command = [
    hostProgram('slirp4netns'),
    ...options,
    '--enable-seccomp',
    '--ready-fd=3',
    initPid,
    'tap0',
  ];
  // slirp runs in a mount namespace of its own, every mount private. Its --enable-sandbox makes
  // only / private before it detaches the old root, so a shared mount below / (podman's and
  // `ip netns`' /run/netns where /run is no mount of its own) would lose its submounts on the
  // host too: every container's network namespace, at each sandbox's start. Its forwarder reads
  // /etc/resolv.conf as it starts: where the runtime names the resolvers, ours is bound there.
  const privateMounts = [
    hostProgram('unshare'),
    ...['--mount', '--propagation', 'private', '--', '/bin/sh', '-c'],
    '[ -z "$1" ] || mount --bind "$1" /etc/resolv.conf || exit 1; shift; exec "$@"',
    'orrery-slirp',
    settings.resolvConf ?? '',
    ...command,
  ];
  const argv = joinCgroupsArgv(joinDirs(record.cgroups), privateMounts);
  const child = spawn(argv[0]!, argv.slice(1), {
    detached: true,
    env: hostEnv,
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  const exited = `slirp4netns for sandbox ${record.id} exited`;
  return startedOrKilled(
    child,
    async () => {
      await ready(child, record.id);
      if (child.pid === undefined) throw new Error(exited);
      return child.pid;
    },
    exited,
  );
}

/** slirp4netns writes `1` on its ready fd once the tap is configured in the sandbox. */
function ready(child: ChildProcess, id: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let said = '';
    (child.stdio[2] as Readable).on('data', (chunk: Buffer) => {
      said = (said + chunk.toString()).slice(-2000);
    });
    (child.stdio[3] as Readable).once('data', () => resolve());
    const timer = setTimeout(
      () => reject(new Error(`slirp4netns for sandbox ${id} was not ready in 10 s: ${said}`)),
      10_000,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`slirp4netns for sandbox ${id} exited (${code}): ${said.trim()}`));
    });
    child.once('error', reject);
  });
}

/** The nftables ruleset for a policy, once its names are resolved to addresses. */
export function firewallRuleset(
  policy: NetworkPolicy,
  resolved: { deny: string[]; allow: string[]; host: string[] },
): string {
  const denied = [...alwaysDenied.map((range) => range.cidr), ...resolved.host, ...resolved.deny];
  const byFamily = (entries: string[], family: 'ipv4' | 'ipv6') =>
    collapse(entries.filter((entry) => ipaddr.parseCIDR(entry)[0].kind() === family));
  const set = (name: string, type: string, entries: string[]) =>
    `  set ${name} { type ${type}; flags interval; auto-merge;${entries.length > 0 ? ` elements = { ${entries.join(', ')} };` : ''} }`;
  const narrowed = policy.allow.length > 0;
  return [
    'table inet orrery {',
    set('denied4', 'ipv4_addr', byFamily(denied, 'ipv4')),
    set('denied6', 'ipv6_addr', byFamily(denied, 'ipv6')),
    set('allowed4', 'ipv4_addr', byFamily(resolved.allow, 'ipv4')),
    set('allowed6', 'ipv6_addr', byFamily(resolved.allow, 'ipv6')),
    '  chain output {',
    '    type filter hook output priority 0; policy accept;',
    '    oif "lo" accept',
    `    ip daddr ${slirp.dns} udp dport 53 accept`,
    `    ip daddr ${slirp.dns} tcp dport 53 accept`,
    '    ip daddr @denied4 reject with icmp type admin-prohibited',
    '    ip6 daddr @denied6 reject with icmpv6 type admin-prohibited',
    ...(narrowed
      ? [
          '    ip daddr != @allowed4 reject with icmp type admin-prohibited',
          '    ip6 daddr != @allowed6 reject with icmpv6 type admin-prohibited',
        ]
      : []),
    ...(policy.egress === 'none' ? ['    reject'] : []),
    '  }',
    '}',
    '',
  ].join('\n');
}

/** Overlapping entries merged: nft refuses an interval set whose elements overlap. */
function collapse(cidrs: string[]): string[] {
  const parsed = [...new Set(cidrs)].map((cidr) => ({ cidr, range: ipaddr.parseCIDR(cidr) }));
  return parsed
    .filter(
      ({ cidr, range }) =>
        !parsed.some(
          (other) =>
            other.cidr !== cidr &&
            other.range[1] <= range[1] &&
            range[0].kind() === other.range[0].kind() &&
            range[0].match(other.range) &&
            (other.range[1] < range[1] || other.cidr < cidr),
        ),
    )
    .map(({ cidr }) => cidr);
}

/** The firewall written into the sandbox's network namespace by the host's root, replacing any. */
async function applyFirewall(
  initPid: number,
  policy: NetworkPolicy,
  settings: EgressSettings,
): Promise<void> {
  const [deny, allow] = await Promise.all([
    resolveRules(rulesOf(policy.deny), settings),
    resolveRules(rulesOf(policy.allow), settings),
  ]);
  const ruleset = `flush ruleset\n${firewallRuleset(policy, { deny, allow, host: await hostAddresses() })}`;
  try {
    await runToEnd(
      hostProgram('nsenter'),
      [`--net=/proc/${initPid}/ns/net`, '--', hostProgram('nft'), '-f', '-'],
      {
        env: hostEnv,
        input: ruleset,
      },
    );
  } catch (error) {
    const said = error instanceof RunFailed ? error.tail.trim() : String(error);
    throw new Error(`nft refused the sandbox's firewall: ${said}`);
  }
}

/** Every address of the host's own network namespace: a sandbox reaches none of them. */
export async function hostAddresses(): Promise<string[]> {
  const listed = await hostOutput('ip', ['-j', 'address', 'show']);
  const interfaces = JSON.parse(listed || '[]') as {
    addr_info?: { local?: string; family?: string }[];
  }[];
  return interfaces.flatMap((link) =>
    (link.addr_info ?? []).flatMap((info) =>
      info.local === undefined ? [] : [`${info.local}/${info.family === 'inet6' ? 128 : 32}`],
    ),
  );
}

/** Addresses and ranges as they are, names resolved now (a name that does not resolve adds none). */
async function resolveRules(rules: NetworkRule[], settings: EgressSettings): Promise<string[]> {
  const resolver = new dns.Resolver({ timeout: 2000, tries: 2 });
  if (settings.dns !== undefined && settings.dns.length > 0) resolver.setServers([...settings.dns]);
  const lists = await Promise.all(
    rules.map(async (rule) => {
      if (rule.kind === 'cidr') return [rule.cidr];
      const [v4, v6] = await Promise.all([
        resolver.resolve4(rule.name).catch(() => [] as string[]),
        resolver.resolve6(rule.name).catch(() => [] as string[]),
      ]);
      return [...v4.map((address) => `${address}/32`), ...v6.map((address) => `${address}/128`)];
    }),
  );
  return lists.flat();
}

/** resolv.conf naming the sandboxes' upstream resolvers, for slirp's forwarder. */
export function writeResolvConf(path: string, servers: readonly string[]): void {
  writeFileSync(path, servers.map((server) => `nameserver ${server}\n`).join(''));
}
