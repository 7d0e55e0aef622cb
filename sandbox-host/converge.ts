import { SandboxError } from '../domain/sandboxes/errors.ts';
import { type NetworkPolicy, sameNetwork } from '../domain/sandboxes/network.ts';
import type { SandboxStatus } from '../domain/sandboxes/sandbox.ts';
import type { Logger } from '../platform/logger.ts';
import type { SandboxRuntime } from '../sandbox-runtime/runtime.ts';
import type { Loaded } from '../stores/sandboxes.ts';

// Bringing the host in line with the read model: what the runtime must do for each status the
// decider can leave a sandbox in (domain/sandboxes/sandbox.ts). Every step is idempotent (the
// runtime's create, fork, stop, resume and destroy answer a repeat with the state as it is), so
// a command cut short by a crash is finished by running this again (recovery.ts), and a retried
// create finishes what its first attempt began. The network policy (issue 48) is brought in line
// the same way: a sandbox is created with its row's, a fork's copy takes its source's from the
// runtime, and one whose runtime holds another policy (an update cut short, a fork of a source
// whose update was) is given its row's.

/** What converging needs from the command shell (commands.ts), and only that. */
export interface ConvergeDeps {
  runtime: SandboxRuntime;
  logger: Logger;
  /** Decides and records that the sandbox runs (`ReportStarted`), answering the state it leaves. */
  reportStarted(loaded: Loaded): Promise<Loaded>;
}

type HostState = 'running' | 'stopped' | 'exited' | 'missing';

/** What the runtime holds of the sandbox: its state, and its network policy unless it is missing. */
async function hostState(
  runtime: SandboxRuntime,
  sandboxId: string,
): Promise<{ state: HostState; network?: NetworkPolicy }> {
  try {
    const status = await runtime.status(sandboxId);
    return { state: status.state, network: status.network };
  } catch (error) {
    if (error instanceof SandboxError && error.code === 'not_found') return { state: 'missing' };
    throw error;
  }
}

type Step = (deps: ConvergeDeps, loaded: Loaded, host: HostState) => Promise<Loaded>;

const steps: Record<SandboxStatus, Step> = {
  /**
   * Created, forked, resumed or restarted: bring it up, then record that it runs (`create`
   * resolves here). A restart's processes were ended by commands.ts before this step.
   */
  starting: async (deps, loaded, host) => {
    const { runtime } = deps;
    const { sandbox } = loaded;
    if (host === 'missing') {
      if (sandbox.forkedFrom) {
        const copy = await runtime.fork(sandbox.forkedFrom, sandbox.id);
        await alignNetwork(deps, loaded, copy.network);
      } else
        await runtime.create(sandbox.id, {
          size: sandbox.size,
          network: sandbox.network,
          ...(sandbox.template === null ? {} : { template: sandbox.template }),
        });
    } else if (host !== 'running') {
      await runtime.resume(sandbox.id);
    }
    return deps.reportStarted(loaded);
  },
  /** A dead init is restarted by the runtime on the next use; a frozen one is thawed now. */
  running: async (deps, loaded, host) => {
    if (host === 'stopped') await deps.runtime.resume(loaded.sandbox.id);
    if (host === 'missing')
      deps.logger.error(
        { sandboxId: loaded.sandbox.id },
        'sandboxes: running in the read model but unknown to the runtime; its files are gone',
      );
    return loaded;
  },
  stopped: async (deps, loaded, host) => {
    if (host !== 'missing' && host !== 'stopped') await deps.runtime.stop(loaded.sandbox.id);
    return loaded;
  },
  deleted: async (deps, loaded, host) => {
    if (host !== 'missing') await deps.runtime.destroy(loaded.sandbox.id);
    return loaded;
  },
  /**
   * Marked lost while this host was away longer than the grace period: the fleet has written it
   * off (its runs failed, its org told), so what is left of it here is cleared away.
   */
  lost: async (deps, loaded, host) => {
    if (host !== 'missing') {
      deps.logger.warn(
        { sandboxId: loaded.sandbox.id },
        'sandboxes: marked lost while this host was away; its files here are removed',
      );
      await deps.runtime.destroy(loaded.sandbox.id);
    }
    return loaded;
  },
};

/** Gives the runtime the row's network policy when it holds another. */
async function alignNetwork(
  deps: ConvergeDeps,
  loaded: Loaded,
  held: NetworkPolicy | undefined,
): Promise<void> {
  const { sandbox } = loaded;
  if (held === undefined || sameNetwork(held, sandbox.network)) return;
  await deps.runtime.setNetwork(sandbox.id, sandbox.network);
}

export async function converge(deps: ConvergeDeps, loaded: Loaded): Promise<Loaded> {
  const host = await hostState(deps.runtime, loaded.sandbox.id);
  const { status } = loaded.sandbox;
  // Before the step: a resume then starts the sandbox's way out as its policy says.
  if (status === 'starting' || status === 'running' || status === 'stopped')
    await alignNetwork(deps, loaded, host.network);
  return steps[status](deps, loaded, host.state);
}
