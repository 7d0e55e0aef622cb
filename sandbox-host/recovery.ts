import { topicEnd } from '../platform/kafka.ts';
import type { Logger } from '../platform/logger.ts';
import { poll } from '../platform/poll.ts';
import type { PgPool } from '../platform/postgres.ts';
import { reached, storedOffsets } from '../projections/postgres-offsets.ts';
import { sandboxProjectionGroupId } from '../projections/sandbox-postgres.ts';
import type { SandboxRuntime } from '../sandbox-runtime/runtime.ts';
import { topics } from '../schemas/events/topics.ts';
import type { SandboxStore } from '../stores/sandboxes.ts';
import type { SandboxCommands } from './commands.ts';

// Recovery on start (DESIGN.md: a command must not be lost if the host dies between publishing
// and acting). Commands publish first and act on the runtime after, so after a crash the read
// model is ahead of the runtime, never behind. On start the sandbox host:
//
// 1. lets the runtime recover its own state (processes restarted or refrozen as last asked);
// 2. waits until the sandbox projection has read the topic to where it ended at start, so the
//    read model holds every event published before the crash;
// 3. converges every sandbox the read model places on this host, and any its runtime still holds
//    (converge.ts): a create, fork or resume cut short is brought up and reported started; a stop
//    or destroy is finished; one marked lost while the host was away is cleared away. A restart
//    cut short is reported started with the processes it finds (the caller's retry restarts).
//
// It runs in the background once the host serves; commands meanwhile take the same locks.

/** True once the projection holds every event published before the call; false after `timeoutMs`. */
export async function waitForSandboxProjection(pool: PgPool, timeoutMs: number): Promise<boolean> {
  const end = await topicEnd(topics.sandbox.name);
  const caughtUp = await poll(
    async () => reached(await storedOffsets(pool, sandboxProjectionGroupId, topics.sandbox.name), end),
    { timeoutMs, intervalMs: 100 },
  );
  return caughtUp === true;
}

export async function recoverSandboxes(deps: {
  hostId: string;
  commands: SandboxCommands;
  store: SandboxStore;
  runtime: SandboxRuntime;
  pool: PgPool;
  logger: Logger;
  projectionTimeoutMs?: number;
}): Promise<{ converged: string[]; failed: string[] }> {
  const { logger } = deps;
  const outcomes = await deps.runtime.recover();
  if (!(await waitForSandboxProjection(deps.pool, deps.projectionTimeoutMs ?? 60_000)))
    logger.warn(
      'sandboxes: recovery goes on with a read model behind the topic (are the consumers running?)',
    );
  const onHost = Object.keys(outcomes);
  const known = await deps.store.toRecover(deps.hostId, onHost);
  const converged: string[] = [];
  const failed: string[] = [];
  for (const { sandbox } of known) {
    if (sandbox.host !== deps.hostId) {
      // The read model places it on another host: a folder left here by a copy or a move is not ours.
      logger.warn(
        { sandboxId: sandbox.id, host: sandbox.host },
        'sandboxes: on this host but held by another; left as it is',
      );
      continue;
    }
    try {
      await deps.commands.bringHostInLine(sandbox.id);
      converged.push(sandbox.id);
    } catch (error) {
      failed.push(sandbox.id);
      logger.error(
        { err: error, sandboxId: sandbox.id },
        'sandboxes: recovery could not converge the sandbox',
      );
    }
  }
  const knownIds = new Set(known.map(({ sandbox }) => sandbox.id));
  const strangers = onHost.filter((id) => !knownIds.has(id));
  if (strangers.length > 0)
    logger.warn(
      { sandboxIds: strangers },
      'sandboxes: on this host but not in the read model; left as they are',
    );
  logger.info({ converged: converged.length, failed: failed.length }, 'sandboxes: recovered');
  return { converged, failed };
}
