import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  containersConfChoice,
  containersConfText,
  decideEngine,
  type EngineFacts,
  forgetContainersOfAnEarlierBoot,
} from '../../../infra/containers/engine.ts';

const nothing: EngineFacts = {
  sockets: [
    { path: '/var/run/docker.sock', answers: false },
    { path: '/run/podman/podman.sock', answers: false },
  ],
  root: false,
  apt: false,
  podmanInstalled: false,
};

describe('decideEngine: which Docker-compatible engine, or why none', () => {
  it('uses an engine that answers on a socket, the first one found', () => {
    const facts = {
      ...nothing,
      sockets: [
        { path: '/var/run/docker.sock', answers: false },
        { path: '/run/podman/podman.sock', answers: true },
      ],
    };
    expect(decideEngine(facts)).toEqual({
      kind: 'use',
      dockerHost: 'unix:///run/podman/podman.sock',
      found: '/run/podman/podman.sock',
    });
  });

  it('uses DOCKER_HOST when it answers, before any socket', () => {
    const facts = { ...nothing, dockerHost: 'tcp://10.0.0.2:2375', dockerHostAnswers: true };
    expect(decideEngine({ ...facts, sockets: [{ path: '/var/run/docker.sock', answers: true }] })).toEqual({
      kind: 'use',
      dockerHost: 'tcp://10.0.0.2:2375',
      found: 'DOCKER_HOST',
    });
  });

  it('refuses a DOCKER_HOST that does not answer, rather than serve another engine beside it', () => {
    const decision = decideEngine({ ...nothing, root: true, apt: true, dockerHost: 'unix:///x.sock' });
    expect(decision.kind).toBe('none');
    expect(decision.kind === 'none' && decision.message).toMatch(
      /^DOCKER_HOST is unix:\/\/\/x\.sock, but no Docker API answers there/,
    );
  });

  it('serves podman as root: installing it first only when it is missing', () => {
    expect(decideEngine({ ...nothing, root: true, apt: true })).toEqual({ kind: 'serve', install: true });
    expect(decideEngine({ ...nothing, root: true, podmanInstalled: true })).toEqual({
      kind: 'serve',
      install: false,
    });
  });

  it('names what it looked for on a machine with neither engine, and what to do', () => {
    const decision = decideEngine({ ...nothing, apt: true });
    expect(decision).toEqual({
      kind: 'none',
      message:
        'No Docker-compatible engine: DOCKER_HOST is unset and no Docker API answers on ' +
        '/var/run/docker.sock, /run/podman/podman.sock; this process is not root, so it cannot ' +
        'install or serve podman. Start Docker or podman (as root: apt-get install podman runc, ' +
        'then podman system service --time=0 unix:///run/podman/podman.sock), or set DOCKER_HOST ' +
        'to an engine that answers.',
    });
  });

  it('says apt is missing when root cannot install podman', () => {
    const decision = decideEngine({ ...nothing, root: true });
    expect(decision.kind === 'none' && decision.message).toContain(
      'podman is not installed and apt-get is not there to install it',
    );
  });
});

describe("containers.conf: written when absent or ours, never over another's", () => {
  it('writes a missing file, and rewrites ours only when it differs', () => {
    expect(containersConfChoice(undefined)).toBe('write');
    expect(containersConfChoice(containersConfText)).toBe('keep-ours');
    expect(containersConfChoice(containersConfText.replace('20000', '10000'))).toBe('write');
  });

  it('keeps a file Orrery did not write, even one saying the same things', () => {
    expect(containersConfChoice('[engine]\nruntime = "crun"\n')).toBe('keep-theirs');
    expect(containersConfChoice(containersConfText.split('\n').slice(1).join('\n'))).toBe('keep-theirs');
  });

  it('sets runc and ulimits within what this host grants (issue 17)', () => {
    expect(containersConfText).toContain('runtime = "runc"');
    expect(containersConfText).toContain('default_ulimits = ["nofile=20000:20000", "nproc=20000:20000"]');
  });
});

describe('forgetContainersOfAnEarlierBoot: podman state that outlived its containers', () => {
  // A process of this name stands for conmon: /proc shows the first 15 bytes of a program's name.
  const holderName = `conmon-${process.pid}`.slice(0, 15);
  const machine = () => {
    const root = mkdtempSync(join(tmpdir(), 'orrery-podman-boot-'));
    const state = {
      aliveStamp: join(root, 'libpod', 'alive'),
      lockSegment: join(root, 'shm', 'libpod_lock'),
      cniLeases: join(root, 'cni'),
      holders: [holderName],
    };
    for (const file of [
      state.aliveStamp,
      state.lockSegment,
      join(state.cniLeases, 'podman', '10.88.0.7'),
      join(state.cniLeases, 'podman', 'last_reserved_ip.0'),
      join(state.cniLeases, 'podman', 'lock'),
    ]) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, '');
    }
    return state;
  };

  it('drops the stamp, the locks and every lease when no holder is alive', () => {
    const state = machine();
    expect(forgetContainersOfAnEarlierBoot(state)).toBe(true);
    expect(existsSync(state.aliveStamp)).toBe(false);
    expect(existsSync(state.lockSegment)).toBe(false);
    expect(readdirSync(join(state.cniLeases, 'podman')).sort()).toEqual(['last_reserved_ip.0', 'lock']);
  });

  it('leaves everything while a holder runs, since its containers may be alive', async () => {
    const state = machine();
    const holder = join(dirname(state.cniLeases), holderName);
    copyFileSync('/bin/sleep', holder);
    const running = spawn(holder, ['30'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => running.once('spawn', resolve));
      expect(forgetContainersOfAnEarlierBoot(state)).toBe(false);
      expect(existsSync(state.aliveStamp)).toBe(true);
      expect(existsSync(join(state.cniLeases, 'podman', '10.88.0.7'))).toBe(true);
    } finally {
      running.kill();
    }
  });

  it('does nothing where podman never ran this boot or before', () => {
    const state = machine();
    rmSync(state.aliveStamp);
    expect(forgetContainersOfAnEarlierBoot(state)).toBe(false);
    expect(existsSync(join(state.cniLeases, 'podman', '10.88.0.7'))).toBe(true);
  });
});
