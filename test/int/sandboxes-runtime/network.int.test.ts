import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NetworkPolicy } from '../../../domain/sandboxes/network.ts';
import { createDesktop } from '../../../sandbox-runtime/desktop/index.ts';
import { mountTable } from '../../../sandbox-runtime/host.ts';
import { type Internet, internet, startInternet } from '../../harness/internet.ts';
import { eventually } from '../../harness/platform.ts';
import { decodePng, findColour } from '../sandboxes-desktop/png.ts';
import { givenRuntime, prepareTimeoutMs, sandboxId } from './given.ts';

// A sandbox's way out (issue 48), against "the internet" a test can play: a network namespace of
// its own, routed from the host, with two sites and a DNS server on documentation addresses
// (test/harness/internet.ts). The sandboxes' DNS forwarder asks that server (the runtime's `dns`,
// as ORRERY_SANDBOX_DNS would); everything else is as a deployment runs it.

const { runtime, cleanup } = givenRuntime({ dns: [internet.dns] });
let net: Internet;
/** A service on every address of the host, its loopback included (as Postgres, Kafka and the API are). */
let loopbackService: Server;
let loopbackPort = 0;

const open: NetworkPolicy = { egress: 'open', allow: [], deny: [] };
const opened = sandboxId('net-open');

beforeAll(async () => {
  net = await startInternet();
  loopbackService = createServer((socket) => socket.end('host service\n'));
  await new Promise<void>((resolve) => loopbackService.listen(0, '0.0.0.0', resolve));
  const address = loopbackService.address();
  loopbackPort = typeof address === 'object' && address !== null ? address.port : 0;
  await runtime.prepare();
  await runtime.create(opened, { size: 'small', network: open });
}, prepareTimeoutMs);
afterAll(async () => {
  await cleanup();
  loopbackService.close();
  await net.close();
});

const run = async (id: string, command: string) =>
  (await runtime.exec(id, command, { timeoutSeconds: 30 })).result;

/** What a sandbox gets fetching `url` with Python: the page, or the error's name and reason. */
async function fetchFrom(id: string, url: string): Promise<string> {
  const script =
    'import sys, urllib.request\n' +
    'try: print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())\n' +
    'except Exception as e: print("refused:", type(e).__name__, getattr(e, "reason", e))';
  return (await run(id, `python3 -c '${script}' '${url}'`)).stdout;
}

/** Whether a TCP connection from the sandbox to `host:port` opens. */
async function connects(id: string, host: string, port: number): Promise<string> {
  const script =
    'import socket, sys\n' +
    'try: socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3); print("connected")\n' +
    'except Exception as e: print("refused:", e)';
  return (await run(id, `python3 -c '${script}' ${host} ${port}`)).stdout.trim();
}

describe('a sandbox with the open internet', () => {
  it('fetches a page there by name', async () => {
    expect((await run(opened, `getent hosts ${internet.site.name}`)).stdout).toContain(internet.site.address);
    expect(await fetchFrom(opened, `http://${internet.site.name}/`)).toContain(
      `page of ${internet.site.name}`,
    );
  });

  it("is refused the host's addresses, its loopback services, private ranges and cloud metadata", async () => {
    // A service on every address of the host answers the host itself, so each refusal is the
    // sandbox's firewall (admin-prohibited: "No route to host"), not a closed port.
    const fromHost = await new Promise<string>((resolve, reject) => {
      const socket = connect(loopbackPort, '192.0.2.2', () =>
        socket.once('data', (data) => resolve(String(data))),
      );
      socket.on('error', reject);
    });
    expect(fromHost).toBe('host service\n');
    for (const host of [
      '10.0.2.2', // slirp's gateway: the host's loopback behind it
      '192.0.2.2', // this machine's eth0
      internet.hostSide, // the host's end of the link to "the internet"
      '10.88.0.1', // a bridge of the host's (podman's)
      '169.254.169.254',
      '172.16.0.1',
      '192.168.0.1',
      '100.64.0.1',
    ]) {
      expect(await connects(opened, host, loopbackPort), host).toBe('refused: [Errno 113] No route to host');
    }
  });

  it('cannot reach another sandbox, not even a port the host forwards from it', async () => {
    const other = sandboxId('net-other');
    await runtime.create(other, { size: 'small', network: open });
    await run(other, 'setsid python3 -m http.server 8000 --bind 127.0.0.1 </dev/null >/dev/null 2>&1 &');
    await eventually(async () =>
      (await connects(other, '127.0.0.1', 8000)) === 'connected' ? true : undefined,
    );
    const forwarded = await runtime.forward(other, 8000);
    try {
      expect(await connects(opened, '10.0.2.2', forwarded.port)).toMatch(/^refused/);
      expect(await connects(opened, '10.0.2.100', 8000)).toMatch(/^refused/); // its own address, not the other's
    } finally {
      await forwarded.close();
      await runtime.destroy(other);
    }
  });

  it("opens a site in its desktop's browser", async () => {
    const desktop = createDesktop(runtime);
    await desktop.start(opened, { width: 1024, height: 768 });
    await desktop.input(opened, { action: 'open', urls: [`http://${internet.site.name}/`] });
    const green = await eventually(
      async () => findColour(decodePng((await desktop.screenshot(opened)).png), [0, 255, 0]),
      20_000,
      "the site's green page on the screen",
    );
    expect(green.x1 - green.x0).toBeGreaterThan(500); // the page fills the window's width
    await desktop.stop(opened);
  });
});

/** The filesystem type mounted at `path` in this process's mount namespace, if any. */
function mountedAt(path: string): string | undefined {
  return mountTable().find((mount) => mount.mountPoint === path)?.fsType;
}

describe("the host's mounts", () => {
  it("keep their submounts as a sandbox's network starts", async () => {
    // As podman's /run/netns is on a host whose /run is no mount of its own: a shared mount with
    // a mount below it. slirp4netns detaching its old root once unmounted that one on the host too.
    const shared = mkdtempSync(join(tmpdir(), 'orrery-shared-mount-'));
    const below = join(shared, 'below');
    mkdirSync(below);
    execFileSync('mount', ['--bind', shared, shared]);
    try {
      execFileSync('mount', ['--make-shared', shared]);
      execFileSync('mount', ['-t', 'tmpfs', 'tmpfs', below]);
      // Without resolvers of its own, as `npm start` runs it: slirp reads the host's resolv.conf.
      const hostDns = givenRuntime();
      try {
        const id = sandboxId('net-mounts');
        await hostDns.runtime.create(id, { size: 'small', network: open });
        expect(
          (
            await hostDns.runtime.exec(
              id,
              `python3 -c 'import socket; socket.create_connection(("${internet.site.address}", 80), timeout=3); print("connected")'`,
            )
          ).result.stdout.trim(),
        ).toBe('connected');
        expect(mountedAt(below)).toBe('tmpfs');
      } finally {
        await hostDns.cleanup();
      }
    } finally {
      execFileSync('umount', ['--recursive', shared]);
      rmSync(shared, { recursive: true, force: true });
    }
  });
});

describe('a network policy', () => {
  it('egress none reaches nothing, not even a name', async () => {
    const closed = sandboxId('net-none');
    await runtime.create(closed, { size: 'small', network: { egress: 'none', allow: [], deny: [] } });
    expect((await run(closed, `getent hosts ${internet.site.name}`)).exit_code).not.toBe(0);
    expect(await connects(closed, internet.site.address, 80)).toMatch(/^refused/);
    await runtime.destroy(closed);
  });

  it('an allow list narrows it to what it names; deny takes away', async () => {
    const narrowed = sandboxId('net-allow');
    await runtime.create(narrowed, {
      size: 'small',
      network: { egress: 'open', allow: [internet.site.name], deny: [] },
    });
    expect(await fetchFrom(narrowed, `http://${internet.site.name}/`)).toContain('page of');
    expect(await fetchFrom(narrowed, `http://${internet.other.address}/`)).toMatch(/^refused/);

    await runtime.setNetwork(narrowed, { egress: 'open', allow: [], deny: [internet.other.name] });
    expect(await fetchFrom(narrowed, `http://${internet.site.name}/`)).toContain('page of');
    expect(await fetchFrom(narrowed, `http://${internet.other.name}/`)).toMatch(/^refused/);
    await runtime.destroy(narrowed);
  });

  it('changes on a running sandbox, keeps across stop and resume, and a fork keeps its source’s', async () => {
    const changing = sandboxId('net-change');
    await runtime.create(changing, { size: 'small', network: open });
    expect(await fetchFrom(changing, `http://${internet.site.address}/`)).toContain('page of');
    await runtime.setNetwork(changing, { egress: 'none', allow: [], deny: [] });
    expect(await fetchFrom(changing, `http://${internet.site.address}/`)).toMatch(/^refused/);
    expect((await runtime.status(changing)).network).toEqual({ egress: 'none', allow: [], deny: [] });

    await runtime.setNetwork(changing, open);
    await runtime.stop(changing);
    await runtime.resume(changing);
    expect(await fetchFrom(changing, `http://${internet.site.address}/`)).toContain('page of');

    const policy: NetworkPolicy = { egress: 'open', allow: [], deny: [internet.site.address] };
    await runtime.setNetwork(changing, policy);
    const copy = sandboxId('net-fork');
    await runtime.fork(changing, copy);
    expect((await runtime.status(copy)).network).toEqual(policy);
    expect(await fetchFrom(copy, `http://${internet.site.address}/`)).toMatch(/^refused/);
    expect(await fetchFrom(copy, `http://${internet.other.address}/`)).toContain('page of');
    await runtime.destroy(copy);
    await runtime.destroy(changing);
  });
});
