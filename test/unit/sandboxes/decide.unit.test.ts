import { describe, expect, it } from 'vitest';
import {
  decide,
  requireDesktop,
  requireRunning,
  type SandboxCommand,
  useRecordingIntervalSeconds,
} from '../../../domain/sandboxes/decide.ts';
import { SandboxError } from '../../../domain/sandboxes/errors.ts';
import type { NetworkPolicy } from '../../../domain/sandboxes/network.ts';
import { evolve, type SandboxState } from '../../../domain/sandboxes/sandbox.ts';
import {
  at,
  type CommandBody,
  createCommand,
  given,
  meta,
  type StatusName,
  sandboxIn,
  statusNames,
} from './given.ts';

type Expected = string | 'nothing' | { refused: string };

function outcome(command: CommandBody, state: SandboxState, now = at(100_000)): Expected {
  try {
    const events = decide({ ...meta(now), ...command } as SandboxCommand, state);
    return events.length === 0 ? 'nothing' : events.map((e) => e.type).join(',');
  } catch (error) {
    if (error instanceof SandboxError) return { refused: error.code };
    throw error;
  }
}

const notFound = { refused: 'not_found' };
const notRunning = { refused: 'not_running' };
/** A lost sandbox cannot be resumed: in the spec's terms a stopped sandbox, `not_running` (409). */
const lostRefusal = { refused: 'not_running' };

// The spec's "States and transitions" table, completed with what every other state does.
const transitions: [string, CommandBody, Record<StatusName, Expected>][] = [
  [
    'create',
    createCommand(),
    {
      none: 'SandboxCreated',
      starting: 'nothing',
      running: 'nothing',
      stopped: 'nothing',
      lost: 'nothing',
      deleted: 'nothing',
    },
  ],
  [
    'runtime reports started',
    { type: 'ReportStarted' },
    {
      none: notFound,
      starting: 'SandboxStarted',
      running: 'nothing',
      stopped: 'nothing',
      lost: 'nothing',
      deleted: 'nothing',
    },
  ],
  [
    'stop()',
    { type: 'StopSandbox' },
    {
      none: notFound,
      starting: 'SandboxStopped',
      running: 'SandboxStopped',
      stopped: 'nothing',
      lost: 'nothing',
      deleted: notFound,
    },
  ],
  [
    'resume()',
    { type: 'ResumeSandbox' },
    {
      none: notFound,
      starting: 'nothing',
      running: 'nothing',
      stopped: 'SandboxResumed',
      lost: lostRefusal,
      deleted: notFound,
    },
  ],
  [
    'restart() (issue 48)',
    { type: 'RestartSandbox' },
    {
      none: notFound,
      starting: notRunning,
      running: 'SandboxRestarted',
      stopped: notRunning,
      lost: lostRefusal,
      deleted: notFound,
    },
  ],
  [
    'fork()',
    { type: 'ForkSandbox', copyId: 'sbx_copy', name: 'copy', nameTaken: false },
    {
      none: notFound,
      starting: 'SandboxCreated',
      running: 'SandboxCreated',
      stopped: 'SandboxCreated',
      lost: lostRefusal,
      deleted: notFound,
    },
  ],
  [
    'destroy()',
    { type: 'DestroySandbox' },
    {
      none: notFound,
      starting: 'SandboxDestroyed',
      running: 'SandboxDestroyed',
      stopped: 'SandboxDestroyed',
      lost: 'SandboxDestroyed',
      deleted: 'nothing',
    },
  ],
  [
    'update()',
    { type: 'UpdateSandbox', metadata: {} },
    {
      none: notFound,
      starting: 'SandboxUpdated',
      running: 'SandboxUpdated',
      stopped: 'SandboxUpdated',
      lost: 'SandboxUpdated',
      deleted: notFound,
    },
  ],
  [
    'a use (exec, files, desktop)',
    { type: 'RecordUse' },
    {
      none: notFound,
      starting: notRunning,
      running: 'SandboxUsed',
      stopped: notRunning,
      lost: lostRefusal,
      deleted: notFound,
    },
  ],
  [
    'secrets set',
    { type: 'SetSecrets' },
    {
      none: notFound,
      starting: 'SandboxSecretsSet',
      running: 'SandboxSecretsSet',
      stopped: 'SandboxSecretsSet',
      lost: 'SandboxSecretsSet',
      deleted: notFound,
    },
  ],
  [
    'desktop.start()',
    { type: 'StartDesktop' },
    {
      none: notFound,
      starting: notRunning,
      running: 'DesktopStartRequested',
      stopped: notRunning,
      lost: lostRefusal,
      deleted: notFound,
    },
  ],
  [
    'desktop.stop() with no desktop',
    { type: 'StopDesktop' },
    {
      none: notFound,
      starting: notRunning,
      running: 'nothing',
      stopped: notRunning,
      lost: lostRefusal,
      deleted: notFound,
    },
  ],
];

describe('decide: every command from every status', () => {
  const rows = transitions.flatMap(([name, command, expected]) =>
    statusNames.map((status) => [name, status, command, expected[status]] as const),
  );
  it.each(rows)('%s from %s', (_name, status, command, expected) => {
    expect(outcome(command, sandboxIn(status))).toEqual(expected);
  });
});

describe('a host gone for good (issue 47)', () => {
  it.each(statusNames)('marks a sandbox lost from %s only once, naming its host', (status) => {
    const expected = {
      none: notFound,
      starting: 'SandboxLost',
      running: 'SandboxLost',
      stopped: 'SandboxLost',
      lost: 'nothing',
      deleted: 'nothing',
    }[status];
    expect(outcome({ type: 'MarkLost' }, sandboxIn(status))).toEqual(expected);
  });

  it('says a lost sandbox cannot be resumed, and why', () => {
    expect(() => decide({ ...meta(at(9)), type: 'ResumeSandbox' }, sandboxIn('lost'))).toThrow(
      /lost with its sandbox host.*cannot be resumed/,
    );
  });

  it("keeps a fork on its source's host, and records the host a create names", () => {
    const source = sandboxIn('running', { host: 'host_source' });
    const [copy] = decide(
      { ...meta(at(5)), type: 'ForkSandbox', copyId: 'sbx_copy', name: 'copy', nameTaken: false },
      source,
    );
    expect(copy).toMatchObject({ type: 'SandboxCreated', sandboxId: 'sbx_copy', host: 'host_source' });
    const lost = decide({ ...meta(at(6)), type: 'MarkLost' }, source).reduce(evolve, source);
    expect(lost).toMatchObject({ status: 'lost', host: 'host_source' });
    expect(lost?.desktop).toBeUndefined();
  });
});

describe('idle timeout', () => {
  // Created at at(0), started at at(1): the idle clock starts at at(1).
  const idle = (seconds: number) => sandboxIn('running', { idleTimeoutSeconds: seconds });
  const wait = 60 + useRecordingIntervalSeconds;

  it.each([
    ['before the timeout and recording interval', 60, 1 + wait - 0.001, 'nothing'],
    ['exactly at it', 60, 1 + wait, 'SandboxStopped'],
    ['long after it', 60, 100_000, 'SandboxStopped'],
    ['never with 0', 0, 10_000_000, 'nothing'],
  ] as const)('%s', (_name, timeout, nowSeconds, expected) => {
    expect(outcome({ type: 'ExpireIdle' }, idle(timeout), at(nowSeconds))).toBe(expected);
  });

  it('stops with the reason idle_timeout', () => {
    const [event] = decide({ ...meta(at(100_000)), type: 'ExpireIdle' }, idle(60));
    expect(event).toMatchObject({ type: 'SandboxStopped', reason: 'idle_timeout' });
  });

  it.each(['none', 'starting', 'stopped', 'deleted'] as const)(
    'never refuses, and decides nothing %s',
    (status) => {
      expect(outcome({ type: 'ExpireIdle' }, sandboxIn(status, { idleTimeoutSeconds: 60 }))).toBe('nothing');
    },
  );

  it('counts from the last recorded use; start and resume restart the clock', () => {
    const apply = (
      state: SandboxState,
      type: 'RecordUse' | 'StopSandbox' | 'ResumeSandbox',
      seconds: number,
    ) => decide({ ...meta(at(seconds)), type }, state).reduce(evolve, state);
    const used = apply(idle(60), 'RecordUse', 500);
    expect(used?.lastUsedAt).toEqual(at(500));
    expect(outcome({ type: 'ExpireIdle' }, used, at(500 + wait - 1))).toBe('nothing');
    expect(outcome({ type: 'ExpireIdle' }, used, at(500 + wait))).toBe('SandboxStopped');
    const resumed = apply(apply(used, 'StopSandbox', 600), 'ResumeSandbox', 9000);
    expect(resumed?.lastUsedAt).toEqual(at(9000));
  });

  it.each([
    [useRecordingIntervalSeconds - 0.001, 'nothing'],
    [useRecordingIntervalSeconds, 'SandboxUsed'],
  ] as const)('records a use %s s after the last one: %s', (seconds, expected) => {
    expect(outcome({ type: 'RecordUse' }, idle(60), at(1 + seconds))).toBe(expected);
  });
});

describe('create and fork', () => {
  it('refuses a taken name with invalid_request on `name`', () => {
    expect(() => given([createCommand({ nameTaken: true })])).toThrowError(
      expect.objectContaining({ code: 'invalid_request', param: 'name' }),
    );
  });

  it('starts a created sandbox in starting, with its fields', () => {
    const state = sandboxIn('starting', { size: 'large', idleTimeoutSeconds: 600, idempotencyKey: 'k-1' });
    expect(state).toMatchObject({
      status: 'starting',
      name: 'sb-0a1b2c',
      size: 'large',
      metadata: { team: 'web' },
      idleTimeoutSeconds: 600,
      idempotencyKey: 'k-1',
      forkedFrom: null,
      hasSecrets: false,
    });
  });

  it('makes a copy with the same metadata, size, idle timeout and secrets, on the copy stream', () => {
    const source = given(
      [{ type: 'SetSecrets' }],
      sandboxIn('stopped', { size: 'xl', idleTimeoutSeconds: 120 }),
    );
    const events = decide(
      { ...meta(), type: 'ForkSandbox', copyId: 'sbx_copy', name: 'copy', nameTaken: false },
      source,
    );
    expect(events).toEqual([
      expect.objectContaining({
        type: 'SandboxCreated',
        sandboxId: 'sbx_copy',
        name: 'copy',
        size: 'xl',
        metadata: { team: 'web' },
        idleTimeoutSeconds: 120,
        idempotencyKey: null,
        forkedFrom: source?.id,
        hasSecrets: true,
      }),
    ]);
  });

  it('refuses a fork under a taken name', () => {
    const command = { type: 'ForkSandbox', copyId: 'sbx_copy', name: 'taken', nameTaken: true } as const;
    expect(outcome(command, sandboxIn('running'))).toEqual({ refused: 'invalid_request' });
  });
});

describe('update', () => {
  const running = sandboxIn('running');
  it('records only what changes', () => {
    const [event] = decide(
      { ...meta(), type: 'UpdateSandbox', metadata: { team: 'web' }, idleTimeoutSeconds: 60 },
      running,
    );
    expect(event).toMatchObject({ type: 'SandboxUpdated', idleTimeoutSeconds: 60 });
    expect(event).not.toHaveProperty('metadata');
  });

  it('decides nothing when nothing changes', () => {
    expect(outcome({ type: 'UpdateSandbox', metadata: { team: 'web' } }, running)).toBe('nothing');
    expect(outcome({ type: 'UpdateSandbox' }, running)).toBe('nothing');
  });

  it('replaces all metadata, and {} removes every key', () => {
    expect(given([{ type: 'UpdateSandbox', metadata: { a: '1' } }], running)?.metadata).toEqual({ a: '1' });
    expect(given([{ type: 'UpdateSandbox', metadata: {} }], running)?.metadata).toEqual({});
  });
});

describe('network (issue 48)', () => {
  const closed: NetworkPolicy = { egress: 'none', allow: [], deny: [] };
  const narrowed: NetworkPolicy = { egress: 'open', allow: ['pypi.org', '151.101.0.0/16'], deny: [] };
  const update = (network: unknown) => ({ type: 'UpdateSandbox', network }) as CommandBody;

  it('records the policy a create names, and the sandbox has it', () => {
    const [event] = decide({ ...meta(), ...createCommand({ network: closed }) } as SandboxCommand, undefined);
    expect(event).toMatchObject({ type: 'SandboxCreated', network: closed });
    expect(sandboxIn('running', { network: narrowed })?.network).toEqual(narrowed);
  });

  it("gives a fork's copy its source's policy as the source has it now (after an update)", () => {
    const source = given([update(narrowed)], sandboxIn('running', { network: closed }));
    const [copy] = decide(
      { ...meta(), type: 'ForkSandbox', copyId: 'sbx_copy', name: 'copy', nameTaken: false },
      source,
    );
    expect(copy).toMatchObject({ type: 'SandboxCreated', sandboxId: 'sbx_copy', network: narrowed });
    expect(evolve(undefined, copy!)?.network).toEqual(narrowed);
  });

  it('records a new policy whole, on a running or a stopped sandbox, and only when it changes', () => {
    for (const status of ['running', 'stopped'] as const) {
      const state = sandboxIn(status);
      const [event] = decide({ ...meta(), ...update(closed) } as SandboxCommand, state);
      expect(event).toEqual(expect.objectContaining({ type: 'SandboxUpdated', network: closed }));
      expect(event).not.toHaveProperty('metadata');
      expect(given([update(closed)], state)).toMatchObject({
        status,
        network: closed,
        metadata: { team: 'web' },
      });
    }
    const open = sandboxIn('running', { network: narrowed });
    expect(outcome(update({ ...narrowed, allow: [...narrowed.allow] }), open)).toBe('nothing');
    // The lists are shown as sent: another order is another policy to show.
    expect(outcome(update({ ...narrowed, allow: ['151.101.0.0/16', 'pypi.org'] }), open)).toBe(
      'SandboxUpdated',
    );
    expect(outcome(update({ ...narrowed, deny: ['example.com'] }), open)).toBe('SandboxUpdated');
    // Leaving it out of an update leaves it as it is.
    expect(given([{ type: 'UpdateSandbox', idleTimeoutSeconds: 60 }], open)?.network).toEqual(narrowed);
  });

  it('refuses an update of a deleted sandbox, network or not', () => {
    expect(outcome(update(closed), sandboxIn('deleted'))).toEqual({ refused: 'not_found' });
  });
});

describe('desktop', () => {
  const ready = {
    type: 'ReportDesktopReady',
    endpoints: { display: ':1', vncPort: 5901, devtools: 'http://127.0.0.1:9222', browser: 'chromium 126' },
  } as const;
  const withDesktop = given([{ type: 'StartDesktop' }, ready], sandboxIn('running'));

  it('starts at 1280x800 unless told otherwise', () => {
    const [event] = decide({ ...meta(), type: 'StartDesktop' }, sandboxIn('running'));
    expect(event).toMatchObject({ type: 'DesktopStartRequested', size: { width: 1280, height: 800 } });
  });

  it('is running once the runtime reports it ready', () => {
    expect(withDesktop?.desktop).toMatchObject({ status: 'running', vncPort: 5901 });
    expect(outcome(ready, withDesktop)).toBe('nothing');
  });

  it.each([
    ['no resolution', undefined, 'nothing'],
    ['the same resolution', { width: 1280, height: 800 }, 'nothing'],
    ['another resolution', { width: 1920, height: 1080 }, { refused: 'invalid_request' }],
  ] as const)('start again with %s', (_name, size, expected) => {
    expect(outcome({ type: 'StartDesktop', ...(size ? { size } : {}) }, withDesktop)).toEqual(expected);
  });

  it('stops, and stopping again decides nothing', () => {
    const stopped = given([{ type: 'StopDesktop' }], withDesktop);
    expect(stopped?.desktop).toBeUndefined();
    expect(outcome({ type: 'StopDesktop' }, stopped)).toBe('nothing');
  });

  it('survives stop and resume of the sandbox (processes are kept), not destroy', () => {
    const resumed = given(
      [{ type: 'StopSandbox' }, { type: 'ResumeSandbox' }, { type: 'ReportStarted' }],
      withDesktop,
    );
    expect(resumed?.desktop?.status).toBe('running');
    expect(given([{ type: 'DestroySandbox' }], withDesktop)?.desktop).toBeUndefined();
  });

  it('ends with a restart (its processes end), which starts the sandbox again and the idle clock', () => {
    const restart = { ...meta(at(500)), type: 'RestartSandbox' } as const;
    const restarted = decide(restart, withDesktop).reduce(evolve, withDesktop);
    expect(restarted).toMatchObject({ status: 'starting', lastUsedAt: at(500) });
    expect(restarted?.desktop).toBeUndefined();
    expect(given([{ type: 'ReportStarted' }], restarted)?.status).toBe('running');
  });

  it('a late ready report after a stop decides nothing', () => {
    const stopped = given([{ type: 'StartDesktop' }, { type: 'StopDesktop' }], sandboxIn('running'));
    expect(outcome(ready, stopped)).toBe('nothing');
  });

  it.each([
    ['no desktop', sandboxIn('running'), 'no_desktop'],
    ['a starting desktop', given([{ type: 'StartDesktop' }], sandboxIn('running')), 'no_desktop'],
    ['a stopped sandbox', given([{ type: 'StopSandbox' }], withDesktop), 'not_running'],
    ['a deleted sandbox', sandboxIn('deleted'), 'not_found'],
  ] as const)('requireDesktop refuses %s with %s', (_name, state, code) => {
    expect(() => requireDesktop(state)).toThrowError(expect.objectContaining({ code }));
  });

  it('requireDesktop passes a running desktop', () => {
    expect(requireDesktop(withDesktop).desktop.status).toBe('running');
  });
});

describe('requireRunning', () => {
  it.each([
    ['starting', /starting: retry/],
    ['stopped', /resume it/],
  ] as const)('refuses a %s sandbox with not_running and says what to do', (status, message) => {
    expect(() => requireRunning(sandboxIn(status))).toThrowError(message);
  });
});

describe('template (issue 48)', () => {
  it('records the template a create names; the sandbox stands on it, and one made without stands on none', () => {
    const [event] = decide(
      { ...meta(), ...createCommand({ template: 'tpl_tools' }) } as SandboxCommand,
      undefined,
    );
    expect(event).toMatchObject({ type: 'SandboxCreated', template: 'tpl_tools' });
    expect(sandboxIn('running', { template: 'tpl_tools' })?.template).toBe('tpl_tools');
    expect(sandboxIn('running')?.template).toBeNull();
  });

  it("gives a fork's copy its source's template: its files stand on the same layers", () => {
    const source = sandboxIn('running', { template: 'tpl_tools' });
    const [copy] = decide(
      { ...meta(), type: 'ForkSandbox', copyId: 'sbx_copy', name: 'copy', nameTaken: false },
      source,
    );
    expect(copy).toMatchObject({ type: 'SandboxCreated', sandboxId: 'sbx_copy', template: 'tpl_tools' });
    expect(evolve(undefined, copy!)?.template).toBe('tpl_tools');
  });
});
