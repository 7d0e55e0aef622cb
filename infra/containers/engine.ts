import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { isIP } from 'node:net';
import { dirname, join } from 'node:path';
import type { Config } from '../../platform/config.ts';
import { type DebianPackage, ensureDebianPackages } from '../../platform/debian-packages.ts';
import { poll } from '../../platform/poll.ts';
import { type Component, stackPaths } from '../stack/component.ts';
import { commandExists, readPid, startDaemon, tail } from '../stack/processes.ts';

// A Docker-compatible engine for the project's containers (issue 17): one that answers already
// (DOCKER_HOST, Docker's socket, podman's), or else, where the machine lets us (root, apt), Debian's
// podman, installed and served by the project like a part of the stack: `podman system service`
// as a daemon with its pid file and log under the stack's folder (infra/stack/processes.ts).

/** Where podman serves the Docker API when it runs as root, its usual place. */
export const podmanSocket = '/run/podman/podman.sock';
export const dockerSocket = '/var/run/docker.sock';
export const containersConf = '/etc/containers/containers.conf';

/**
 * Podman 4.3 from Debian, rootful. runc, not crun: crun refuses a host with hybrid cgroups (this
 * one). Rootful needs neither uidmap nor slirp4netns; the CNI plugins and iptables give containers
 * a bridge network beside `--network=host`, and catatonit is `--init`.
 */
export const enginePackages: readonly DebianPackage[] = [
  { pkg: 'podman', present: () => commandExists('podman') },
  { pkg: 'runc', present: () => commandExists('runc') },
  { pkg: 'containernetworking-plugins', present: () => existsSync('/usr/lib/cni/bridge') },
  { pkg: 'iptables', present: () => commandExists('iptables') },
  {
    pkg: 'catatonit',
    present: () => existsSync('/usr/libexec/podman/catatonit') || commandExists('catatonit'),
  },
  // Names on a container network: the stack's parts find each other by alias (testcontainers).
  {
    pkg: 'golang-github-containernetworking-plugin-dnsname',
    present: () => existsSync('/usr/lib/cni/dnsname'),
  },
  // Makes the base image without a registry (images.ts).
  { pkg: 'debootstrap', present: () => commandExists('debootstrap') },
];

/** What the finder saw on this machine; `decideEngine` turns it into a decision, purely. */
export interface EngineFacts {
  /** DOCKER_HOST as the environment gives it. */
  dockerHost?: string;
  /** Each socket looked at, in order, and whether a Docker API answered `/_ping` on it. */
  sockets: readonly { path: string; answers: boolean }[];
  /** Whether DOCKER_HOST answered `/_ping` (only asked when set). */
  dockerHostAnswers?: boolean;
  root: boolean;
  apt: boolean;
  podmanInstalled: boolean;
}

export type EngineDecision =
  | { kind: 'use'; dockerHost: string; found: string }
  | { kind: 'serve'; install: boolean }
  | { kind: 'none'; message: string };

/** Which engine to use, or that podman is to be served (installed first if need be), or why not. */
export function decideEngine(facts: EngineFacts): EngineDecision {
  if (facts.dockerHost !== undefined) {
    if (facts.dockerHostAnswers) return { kind: 'use', dockerHost: facts.dockerHost, found: 'DOCKER_HOST' };
    // The caller chose an engine: serving another one beside it would hide their mistake.
    return {
      kind: 'none',
      message: `DOCKER_HOST is ${facts.dockerHost}, but no Docker API answers there (GET /_ping). Start that engine, or unset DOCKER_HOST to let the project find or serve one.`,
    };
  }
  const answering = facts.sockets.find((socket) => socket.answers);
  if (answering) return { kind: 'use', dockerHost: `unix://${answering.path}`, found: answering.path };
  if (facts.root && (facts.podmanInstalled || facts.apt))
    return { kind: 'serve', install: !facts.podmanInstalled };
  const looked = facts.sockets.map((socket) => socket.path).join(', ');
  const why = !facts.root
    ? 'this process is not root, so it cannot install or serve podman'
    : 'podman is not installed and apt-get is not there to install it';
  return {
    kind: 'none',
    message:
      `No Docker-compatible engine: DOCKER_HOST is unset and no Docker API answers on ${looked}; ${why}. ` +
      `Start Docker or podman (as root: apt-get install podman runc, then podman system service --time=0 unix://${podmanSocket}), ` +
      'or set DOCKER_HOST to an engine that answers.',
  };
}

export interface Engine {
  /** What to give Docker clients (testcontainers, the docker CLI) as DOCKER_HOST. */
  dockerHost: string;
  /** The command line that builds and runs images against it: podman when installed, else docker. */
  cli: 'podman' | 'docker';
  /** How it came to answer. */
  how: 'found' | 'started' | 'installed';
  /** Seconds each step took, for the log and the closing note. */
  timings: Record<string, number>;
}

/** The sockets a Docker API may answer on, in the order they are tried. */
export function candidateSockets(environment: NodeJS.ProcessEnv = process.env): string[] {
  const runtimeDir = environment.XDG_RUNTIME_DIR;
  return [dockerSocket, podmanSocket, ...(runtimeDir ? [join(runtimeDir, 'podman', 'podman.sock')] : [])];
}

/** GET /_ping on a unix socket or a tcp:// address; true when it says OK. */
export function pingDockerApi(address: string, timeoutMs = 2000): Promise<boolean> {
  const target = address.startsWith('unix://')
    ? { socketPath: address.slice('unix://'.length) }
    : address.startsWith('tcp://') || address.startsWith('http://')
      ? (() => {
          const url = new URL(address.replace(/^tcp:/, 'http:'));
          return { host: url.hostname, port: Number(url.port || 2375) };
        })()
      : { socketPath: address };
  if ('socketPath' in target && !existsSync(target.socketPath)) return Promise.resolve(false);
  return new Promise((resolve) => {
    const req = request({ ...target, path: '/_ping', timeout: timeoutMs }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on('end', () => resolve(response.statusCode === 200 && body.trim() === 'OK'));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

export async function engineFacts(environment: NodeJS.ProcessEnv = process.env): Promise<EngineFacts> {
  const dockerHost = environment.DOCKER_HOST || undefined;
  const sockets = [];
  for (const path of candidateSockets(environment))
    sockets.push({ path, answers: await pingDockerApi(path) });
  return {
    dockerHost,
    dockerHostAnswers: dockerHost === undefined ? undefined : await pingDockerApi(dockerHost),
    sockets,
    root: process.getuid?.() === 0,
    apt: commandExists('apt-get'),
    podmanInstalled: commandExists('podman'),
  };
}

/**
 * An engine that answers, found or brought up: podman installed from Debian's packages if it is
 * missing, configured (containers.conf), and served on its rootful socket as a stack daemon.
 * Throws the finder's message on a machine where neither is possible.
 */
export async function ensureEngine(config: Config, log: (line: string) => void): Promise<Engine> {
  const timings: Record<string, number> = {};
  const timed = async <T>(step: string, work: () => T | Promise<T>): Promise<T> => {
    const started = Date.now();
    try {
      return await work();
    } finally {
      timings[step] = (Date.now() - started) / 1000;
      log(`${step}: ${timings[step].toFixed(1)} s`);
    }
  };
  const facts = await timed('look for an engine', () => engineFacts());
  const decision = decideEngine(facts);
  if (decision.kind === 'none') throw new Error(decision.message);
  const cli = commandExists('podman') ? 'podman' : 'docker';
  if (decision.kind === 'use') {
    log(`using the engine at ${decision.dockerHost} (found via ${decision.found})`);
    return { dockerHost: decision.dockerHost, cli, how: 'found', timings };
  }
  await timed(decision.install ? 'install podman from Debian' : 'check the engine packages', () =>
    ensureDebianPackages(enginePackages, log),
  );
  writeContainersConf(log);
  const podman = podmanComponent(config);
  await timed('start podman system service', () => podman.start(log));
  return {
    dockerHost: `unix://${podmanSocket}`,
    cli: 'podman',
    how: decision.install ? 'installed' : 'started',
    timings,
  };
}

/** Marks the file as ours, so a later run may rewrite it and never touches anyone else's. */
const confMarker =
  '# Written by Orrery (infra/containers/engine.ts); delete this line to keep your own edits.';

/**
 * The two settings this host needs (issue 17): runc as the runtime, and default ulimits within
 * what the host grants (podman's defaults ask for more, and every container then fails to start).
 */
export const containersConfText = `${confMarker}
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=20000:20000"]

[engine]
runtime = "runc"
`;

export type ConfChoice = 'write' | 'keep-ours' | 'keep-theirs';

/** Written when absent or ours and different; another's file is left alone, with a warning. */
export function containersConfChoice(current: string | undefined): ConfChoice {
  if (current === undefined) return 'write';
  if (!current.startsWith(confMarker)) return 'keep-theirs';
  return current === containersConfText ? 'keep-ours' : 'write';
}

function writeContainersConf(log: (line: string) => void, path = containersConf): void {
  const current = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  const choice = containersConfChoice(current);
  if (choice === 'write') {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, containersConfText);
    log(`wrote ${path}: runtime runc, default ulimits nofile and nproc 20000`);
  } else if (choice === 'keep-theirs') {
    const missing = [
      /^\s*runtime\s*=\s*"runc"/m.test(current ?? '') ? undefined : 'runtime = "runc" under [engine]',
      /default_ulimits/.test(current ?? '') ? undefined : 'default_ulimits under [containers]',
    ].filter((line) => line !== undefined);
    if (missing.length > 0)
      log(
        `left ${path} as it is (not written by Orrery); on a host like ours containers need ${missing.join(' and ')}`,
      );
  }
}

/**
 * `podman system service` as a stack component: started detached with its pid file and log under
 * the stack's folder, healthy when the socket answers /_ping, and so watchable by the stack's
 * watcher (infra/stack/supervise.ts) like any other part.
 */
export function podmanComponent(config: Config): Component {
  const { daemon } = stackPaths(config, 'podman');
  const healthy = () => pingDockerApi(`unix://${podmanSocket}`);
  return {
    name: 'podman',
    port: 0,
    daemons: [daemon],
    install() {},
    healthy,
    async start(log) {
      if (await healthy()) return;
      if (readPid(daemon) === undefined) {
        if (forgetContainersOfAnEarlierBoot())
          log('no podman or conmon alive: podman will refresh its containers as after a boot');
        mkdirSync(dirname(podmanSocket), { recursive: true });
        startDaemon(daemon, {
          command: 'podman',
          args: ['system', 'service', '--time=0', `unix://${podmanSocket}`],
        });
      }
      const up = await poll(
        async () => (await healthy()) || (readPid(daemon) === undefined ? 'died' : false),
        {
          timeoutMs: 30_000,
          intervalMs: 200,
        },
      );
      if (up !== true)
        throw new Error(
          `podman system service does not answer on ${podmanSocket} (${up ?? 'after 30 s'}); read ${daemon.logFile}\n` +
            tail(daemon.logFile, 15),
        );
    },
  };
}

/** What rootful podman keeps for one boot only, and the CNI leases of its containers. */
export interface PodmanBootState {
  /** Podman refreshes its state, every container back to created, when this stamp is missing. */
  aliveStamp: string;
  lockSegment: string;
  /** Where the CNI host-local plugin leases addresses: a folder per network, a file per address. */
  cniLeases: string;
  /** Processes whose life means a container may still run. */
  holders: readonly string[];
}

export const podmanBootState: PodmanBootState = {
  aliveStamp: '/run/libpod/alive',
  lockSegment: '/dev/shm/libpod_lock',
  cniLeases: '/var/lib/cni/networks',
  holders: ['podman', 'conmon'],
};

/** Whether a process of one of these names runs on the machine (read from /proc). */
export function processNamed(names: readonly string[]): boolean {
  return readdirSync('/proc').some((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      return names.includes(readFileSync(`/proc/${entry}/comm`, 'utf8').trim());
    } catch {
      return false; // gone while we looked
    }
  });
}

/**
 * Podman learns of a reboot by its stamp vanishing with the tmpfs it lives on. Where /run is on
 * disk, as on a machine restored from a snapshot, the stamp outlives every container's processes:
 * podman then believes its dead containers run, a container joining one's network fails with
 * "unknown FS magic", and every listing errors. With none of its holders (podman, conmon) alive no container can
 * be running, so dropping the stamp, the locks and the leases lets podman refresh as after a boot.
 * True when it did.
 */
export function forgetContainersOfAnEarlierBoot(state: PodmanBootState = podmanBootState): boolean {
  if (!existsSync(state.aliveStamp) || processNamed(state.holders)) return false;
  rmSync(state.aliveStamp, { force: true });
  rmSync(state.lockSegment, { force: true });
  // Leases of dead containers would hold their addresses until a network's range runs out.
  for (const network of existsSync(state.cniLeases) ? readdirSync(state.cniLeases) : [])
    for (const lease of readdirSync(join(state.cniLeases, network)).filter((name) => isIP(name) !== 0))
      rmSync(join(state.cniLeases, network, lease), { force: true });
  return true;
}

/** The environment testcontainers-node needs on this engine (issue 17's findings). */
export function testcontainersEnvironment(engine: Engine): Record<string, string> {
  return {
    DOCKER_HOST: engine.dockerHost,
    // Ryuk's image cannot be pulled here; each test stops what it started.
    TESTCONTAINERS_RYUK_DISABLED: 'true',
    // This host has a /.dockerenv, which makes testcontainers look for a gateway that is not there.
    TESTCONTAINERS_HOST_OVERRIDE: '127.0.0.1',
  };
}
