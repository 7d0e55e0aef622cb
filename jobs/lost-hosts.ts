import type { Logger } from '../platform/logger.ts';
import type { PgPool } from '../platform/postgres.ts';
import type { EventProducer } from '../producers/producer.ts';
import { recordRunLost } from '../producers/run.ts';
import { recordSandboxCommand, sandboxCommand } from '../producers/sandbox.ts';
import { RunStore } from '../stores/runs.ts';
import { SandboxHosts } from '../stores/sandbox-hosts.ts';
import { SandboxStore } from '../stores/sandboxes.ts';

// Hosts that fail like machines do (issue 47): a host whose lease has run out for longer than the
// grace period (ORRERY_SANDBOX_HOST_GRACE_SECONDS) is gone for good, with its files and processes.
// Every sandbox it held becomes `lost` (a stopped sandbox that cannot be resumed), every run it
// carried out ends `failed` saying so, billed what was recorded; then the host is marked lost.
// A host killed and restarted within the grace period renews its lease first and recovers its
// sandboxes itself (sandbox-host/recovery.ts); one that comes back after finds them lost and
// clears them away. This job is the one writer of a lost host's streams: no host holds them.

export interface LostHostsDeps {
  pool: PgPool;
  producer: EventProducer;
  logger: Logger;
  graceSeconds: number;
  projectionTimeoutMs?: number;
  now?: () => Date;
}

export interface WrittenOff {
  hostId: string;
  sandboxes: string[];
  runs: string[];
}

export async function writeOffLostHosts(deps: LostHostsDeps): Promise<WrittenOff[]> {
  const hosts = new SandboxHosts(deps.pool);
  const written: WrittenOff[] = [];
  for (const host of await hosts.goneFor(deps.graceSeconds)) {
    const off = await writeOff(deps, host.hostId);
    // Marked only if it did not come back meanwhile; if it did, what it held is already lost.
    await hosts.markLost(host.hostId, deps.graceSeconds);
    deps.logger.warn(
      { hostId: host.hostId, name: host.name, sandboxes: off.sandboxes.length, runs: off.runs.length },
      `sandbox host ${host.hostId} (${host.name}) gone for ${deps.graceSeconds} s: its sandboxes are lost, its runs failed`,
    );
    written.push(off);
  }
  return written;
}

async function writeOff(deps: LostHostsDeps, hostId: string): Promise<WrittenOff> {
  const now = deps.now ?? (() => new Date());
  const sandboxes = new SandboxStore(deps.pool);
  const runs = new RunStore(deps.pool);
  const record = {
    producer: deps.producer,
    readModel: sandboxes,
    timeoutMs: deps.projectionTimeoutMs ?? 15_000,
  };
  const off: WrittenOff = { hostId, sandboxes: [], runs: [] };
  for (const loaded of await sandboxes.heldBy(hostId)) {
    const { sandbox } = loaded;
    await recordSandboxCommand(record, sandboxCommand(sandbox, 'MarkLost', now()), loaded);
    off.sandboxes.push(sandbox.id);
  }
  for (const { run } of await runs.active(hostId)) {
    const failure = `The sandbox host carrying out this run (${hostId}) is gone, with the run's sandbox: its output up to then is kept, and it was billed the ${run.recordedSeconds} seconds recorded.`;
    if (await recordRunLost(deps.producer, run, failure, { now: now() })) off.runs.push(run.id);
  }
  return off;
}
