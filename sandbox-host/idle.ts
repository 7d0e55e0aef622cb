import type { Logger } from '../platform/logger.ts';
import type { SandboxStore } from '../stores/sandboxes.ts';
import type { SandboxCommands } from './commands.ts';

// The idle timeout (spec, "States and transitions": a running sandbox with `idleTimeoutSeconds`
// > 0 and no use for that long is stopped). A timer in each sandbox host asks the read model for
// its running sandboxes past `last_used_at + idle_timeout` and gives each to the decider as
// `ExpireIdle`, which has the last word (so a use recorded meanwhile keeps it running). Uses in
// progress (a long exec, an open screen) are skipped: they are use. `last_used_at` moves with
// `RecordUse` on exec, files and the desktop, at most every 10 s (decide.ts), which is why the
// decider waits that much longer: a sandbox is never stopped early.

export interface IdleJob {
  /** One pass; what the timer runs. */
  runOnce(): Promise<string[]>;
  stop(): void;
}

export function startIdleJob(deps: {
  hostId: string;
  commands: SandboxCommands;
  store: SandboxStore;
  now: () => Date;
  intervalMs: number;
  logger: Logger;
  /** Called as each pass begins (a test waits for a pass begun after a moment). */
  onPass?: () => void;
}): IdleJob {
  let running: Promise<string[]> | undefined;

  async function pass(): Promise<string[]> {
    const stopped: string[] = [];
    deps.onPass?.();
    for (const sandboxId of await deps.store.idleCandidates(deps.hostId, deps.now())) {
      if (deps.commands.uses.busy(sandboxId)) continue;
      try {
        const sandbox = await deps.commands.expireIdle(sandboxId);
        if (sandbox.status === 'stopped') stopped.push(sandboxId);
      } catch (error) {
        deps.logger.error({ err: error, sandboxId }, 'sandboxes: idle timeout could not stop the sandbox');
      }
    }
    if (stopped.length > 0)
      deps.logger.info({ sandboxIds: stopped }, 'sandboxes: stopped after their idle timeout');
    return stopped;
  }

  const runOnce = () => {
    running ??= pass().finally(() => {
      running = undefined;
    });
    return running;
  };

  const timer = setInterval(() => {
    runOnce().catch((error: unknown) =>
      deps.logger.error({ err: error }, 'sandboxes: idle timeout pass failed'),
    );
  }, deps.intervalMs);
  timer.unref();
  return { runOnce, stop: () => clearInterval(timer) };
}
