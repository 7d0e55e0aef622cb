import type { CommandBody as Body } from '../../../domain/command-body.ts';
import { decide, type SandboxCommand } from '../../../domain/sandboxes/decide.ts';
import { defaultNetwork } from '../../../domain/sandboxes/network.ts';
import { evolve, initialState, type SandboxState } from '../../../domain/sandboxes/sandbox.ts';

// Builds sandbox states for the decider tests by deciding and evolving real commands, so the
// states are ones the decider can reach.

export const t0 = new Date('2026-08-01T12:00:00.000Z');
export const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

let eventCount = 0;
type Meta = Pick<SandboxCommand, 'eventId' | 'sandboxId' | 'orgId' | 'now'>;
export function meta(now: Date = t0, sandboxId = 'sbx_source'): Meta {
  eventCount += 1;
  return { eventId: `ev_${eventCount}`, sandboxId, orgId: 'org_1', now };
}

export type CommandBody = Body<SandboxCommand, Meta>;

export const createCommand = (
  overrides: Partial<Extract<CommandBody, { type: 'CreateSandbox' }>> = {},
): CommandBody => ({
  type: 'CreateSandbox',
  name: 'sb-0a1b2c',
  nameTaken: false,
  size: 'small',
  metadata: { team: 'web' },
  idleTimeoutSeconds: 0,
  idempotencyKey: null,
  host: 'host_a',
  network: defaultNetwork,
  template: null,
  ...overrides,
});

/** Runs commands in order from an empty stream; each command `i` happens at `at(i)`. */
export function given(commands: CommandBody[], state: SandboxState = initialState()): SandboxState {
  return commands.reduce<SandboxState>(
    (current, command, i) =>
      decide({ ...meta(at(i)), ...command } as SandboxCommand, current).reduce(evolve, current),
    state,
  );
}

export const statusNames = ['none', 'starting', 'running', 'stopped', 'lost', 'deleted'] as const;
export type StatusName = (typeof statusNames)[number];

const paths: Record<StatusName, CommandBody[]> = {
  none: [],
  starting: [createCommand()],
  running: [createCommand(), { type: 'ReportStarted' }],
  stopped: [createCommand(), { type: 'ReportStarted' }, { type: 'StopSandbox' }],
  lost: [createCommand(), { type: 'ReportStarted' }, { type: 'MarkLost' }],
  deleted: [createCommand(), { type: 'ReportStarted' }, { type: 'DestroySandbox' }],
};

export function sandboxIn(
  status: StatusName,
  overrides: Partial<Extract<CommandBody, { type: 'CreateSandbox' }>> = {},
) {
  const [first, ...rest] = paths[status];
  return given(first ? [{ ...first, ...overrides } as CommandBody, ...rest] : []);
}
