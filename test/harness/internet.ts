import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises } from 'node:dns';
import { existsSync } from 'node:fs';
import { ensureDebianPackages } from '../../platform/debian-packages.ts';
import { poll } from '../../platform/poll.ts';

// "The internet" for a test (issue 48): a network namespace of its own, routed from the host,
// holding two web sites and a DNS server on documentation addresses (TEST-NET-2 and -3; this
// machine's own eth0 is on TEST-NET-1). Sites answer a page naming themselves; dnsmasq (Debian's
// dnsmasq-base) answers their names. Nothing else on the machine uses these ranges.

export const internet = {
  hostSide: '198.51.100.1',
  site: { name: 'site.example', address: '198.51.100.80' },
  other: { name: 'other.example', address: '198.51.100.81' },
  dns: '203.0.113.53',
} as const;

export interface Internet {
  /** The page a site answers: `<h1>` of its name on a page coloured by it. */
  page(name: string): string;
  close(): Promise<void>;
}

const colour: Record<string, string> = { [internet.site.name]: '#00ff00', [internet.other.name]: '#0000ff' };

const pageOf = (name: string) =>
  `<html><body style="margin:0;background:${colour[name] ?? '#ffffff'}"><h1>page of ${name}</h1></body></html>`;

/** A web server on each site's address, port 80, in the namespace. */
const serverScript = `
const http = require('node:http');
const [pages] = process.argv.slice(1);
for (const [address, page] of Object.entries(JSON.parse(pages))) {
  http.createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end(page);
  }).listen(80, address, () => process.stdout.write('listening ' + address + '\\n'));
}`;

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

export async function startInternet(log: (line: string) => void = () => {}): Promise<Internet> {
  await ensureDebianPackages([{ pkg: 'dnsmasq-base', present: () => existsSync('/usr/sbin/dnsmasq') }], log);
  const tag = randomBytes(3).toString('hex');
  const namespace = `orrery-inet-${tag}`;
  const hostLink = `oi${tag}h`;
  const peerLink = `oi${tag}p`;
  const processes: ChildProcess[] = [];
  const close = async () => {
    for (const child of processes) child.kill('SIGKILL');
    for (const undo of [
      () => ip('route', 'del', `${internet.dns}/32`),
      () => ip('link', 'del', hostLink),
      () => ip('netns', 'del', namespace),
    ]) {
      try {
        undo();
      } catch {
        // already gone
      }
    }
  };
  try {
    ip('netns', 'add', namespace);
    ip('link', 'add', hostLink, 'type', 'veth', 'peer', 'name', peerLink, 'netns', namespace);
    ip('address', 'add', `${internet.hostSide}/24`, 'dev', hostLink);
    ip('link', 'set', hostLink, 'up');
    for (const address of [
      `${internet.site.address}/24`,
      `${internet.other.address}/24`,
      `${internet.dns}/32`,
    ])
      ip('-n', namespace, 'address', 'add', address, 'dev', peerLink);
    ip('-n', namespace, 'link', 'set', 'lo', 'up');
    ip('-n', namespace, 'link', 'set', peerLink, 'up');
    ip('-n', namespace, 'route', 'add', 'default', 'via', internet.hostSide);
    ip('route', 'add', `${internet.dns}/32`, 'via', internet.site.address);

    const pages = {
      [internet.site.address]: pageOf(internet.site.name),
      [internet.other.address]: pageOf(internet.other.name),
    };
    const web = spawn(
      'ip',
      ['netns', 'exec', namespace, process.execPath, '-e', serverScript, JSON.stringify(pages)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    processes.push(web);
    let said = '';
    web.stdout?.on('data', (chunk: Buffer) => {
      said += chunk.toString();
    });
    const dnsmasq = spawn(
      'ip',
      [
        ...[
          'netns',
          'exec',
          namespace,
          '/usr/sbin/dnsmasq',
          '--keep-in-foreground',
          '--no-resolv',
          '--no-hosts',
        ],
        ...[
          `--listen-address=${internet.dns}`,
          '--bind-interfaces',
          '--port=53',
          '--pid-file',
          '--user=root',
        ],
        `--address=/${internet.site.name}/${internet.site.address}`,
        `--address=/${internet.other.name}/${internet.other.address}`,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    processes.push(dnsmasq);
    const up = await poll(() => said.split('listening').length === 3, { timeoutMs: 10_000, intervalMs: 20 });
    if (!up) throw new Error(`the test internet's web servers did not start: ${said}`);
    const resolver = new promises.Resolver({ timeout: 500, tries: 1 });
    resolver.setServers([internet.dns]);
    const answering = await poll(
      async () =>
        (await resolver.resolve4(internet.site.name).catch((): string[] => [])).includes(
          internet.site.address,
        ),
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    if (!answering)
      throw new Error(`the test internet's DNS server (dnsmasq on ${internet.dns}) did not answer`);
    return { page: pageOf, close };
  } catch (error) {
    await close();
    throw error;
  }
}
