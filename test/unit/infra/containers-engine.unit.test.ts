import { describe, expect, it } from 'vitest';
import {
  containersConfChoice,
  containersConfText,
  decideEngine,
  type EngineFacts,
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
