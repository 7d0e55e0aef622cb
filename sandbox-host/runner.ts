import { randomBytes, randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import { TextDecoder } from 'node:util';
import { decide, type RunCommand, type RunCommandBody } from '../domain/runs/decide.ts';
import type { Actor, OutputStream, RunEvent } from '../domain/runs/events.ts';
import { meterStretchSeconds } from '../domain/runs/metering.ts';
import { defaultRunName, newRunId } from '../domain/runs/names.ts';
import { outputBatching, outputLimitBytes } from '../domain/runs/output.ts';
import { type PlaceRunBody, workingDirectory } from '../domain/runs/requests.ts';
import { resultPath } from '../domain/runs/result.ts';
import { ceilingSeconds, evolve, type Run } from '../domain/runs/run.ts';
import { SandboxError } from '../domain/sandboxes/errors.ts';
import { topicEnd } from '../platform/kafka.ts';
import type { Logger } from '../platform/logger.ts';
import { poll } from '../platform/poll.ts';
import type { PgPool } from '../platform/postgres.ts';
import type { EventProducer } from '../producers/producer.ts';
import { publishRunEvents, publishRunUsage, recordRunLost } from '../producers/run.ts';
import { reached, storedOffsets } from '../projections/postgres-offsets.ts';
import { runProjectionGroupId } from '../projections/run-postgres.ts';
import type { StreamingExec } from '../sandbox-runtime/exec.ts';
import type { SandboxRuntime } from '../sandbox-runtime/runtime.ts';
import { topics } from '../schemas/events/topics.ts';
import type { Loaded, RunStore } from '../stores/runs.ts';
import type { HostRoom } from './room.ts';
import { KeyedLocks } from './serial.ts';

// The runner: the sandbox host carries out the runs placed on it (issue 47), on its own sandbox
// runtime, so a run outlives the API replica that placed it. For each run it makes a fresh
// sandbox of the run's size, network policy and template (its id is the run's), writes the working files, runs
// its command (an argument vector as it is, a shell command line with `/bin/sh -c`;
// domain/runs/command-line.ts) with the caller's environment and `ORRERY_RESULT_PATH`, appends the output as it
// comes, meters the time, stops it at its ceiling or on request, reads the result file, records
// the end and destroys the sandbox.
//
// Where the state lives, and why: while a run is active, this process is its only writer, so its
// state is held here, folded with domain/runs' `evolve` from the events it decided and published
// (one run's decisions are serialized by a lock). The read model follows; a command that answers
// waits for it (`waitForVersion`), so a GET right after shows what the answer showed.
//
// The environment's values and the files' bytes reach only this process's memory (through the
// API replica's, in passing) and the sandbox (domain/runs/events.ts says why): a run whose host
// process dies is never started again, so nothing needs them later. On start, recovery finishes
// every run of this host left active by a process that is gone as failed, saying so, billed what
// was recorded.

export interface RunnerDeps {
  /** This host's id: what placements record, and the only runs it recovers. */
  hostId: string;
  runtime: SandboxRuntime;
  room: HostRoom;
  producer: EventProducer;
  store: RunStore;
  pool: PgPool;
  logger: Logger;
  now: () => Date;
  /** How long a command waits for the read model to show its events. */
  projectionTimeoutMs: number;
  /** How often a running run's seconds are recorded (domain/runs/metering.ts); tests shorten it. */
  meterStretchSeconds?: number;
}

/** The caller's files and environment: memory only (see above). */
export interface Launch {
  files: { path: string; bytes: Uint8Array }[];
  env: Record<string, string>;
}

/** What the API forwards of a placing, checked by it (credit, size, template). */
export interface Placing {
  orgId: string;
  /** Chosen by the API for a placing with an Idempotency-Key; otherwise this host chooses. */
  runId?: string | undefined;
  body: PlaceRunBody;
  placedBy: Actor;
  hasCredit: boolean;
  sizeAvailable: boolean;
  /** The ready template its sandbox is made from (checked by the caller), or null. */
  template: string | null;
}

type StopRequest = { kind: 'stop'; by: Actor } | { kind: 'ceiling' } | { kind: 'shutdown' };

interface StreamBuffer {
  decoder: TextDecoder;
  text: string;
  bytes: number;
  kept: number;
  dropped: number;
  timer: NodeJS.Timeout | undefined;
}

interface ActiveRun {
  state: Run;
  version: number;
  stopRequest?: StopRequest;
  exec?: StreamingExec;
  /** Seconds whose usage events Kafka acknowledged. */
  usagePublished: number;
  buffers: Record<OutputStream, StreamBuffer>;
  /** Settles once the run has ended and its sandbox is gone. */
  ended: Promise<void>;
}

/** A publish that fails is tried again for about ten seconds: a run's events are its only record. */
const retryDelaysMs = [250, 500, 1000, 2000, 4000];

const newBuffer = (): StreamBuffer => ({
  decoder: new TextDecoder('utf-8'),
  text: '',
  bytes: 0,
  kept: 0,
  dropped: 0,
  timer: undefined,
});

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class Runner {
  private readonly active = new Map<string, ActiveRun>();
  private readonly locks = new KeyedLocks();
  private readonly stretch: number;

  constructor(private readonly deps: RunnerDeps) {
    this.stretch = deps.meterStretchSeconds ?? meterStretchSeconds;
  }

  /**
   * Decides the placement (refusals throw before anything is recorded), publishes it, and sets
   * the run going in the background; resolves with the run as placed once the read model shows it.
   * A placing with its run id (the API's, for an Idempotency-Key) places that run at most once,
   * across every host: a retry while or after it was placed resolves with it as it is.
   */
  place(placement: Placing, launch: Launch): Promise<Run> {
    const { runId } = placement;
    if (runId === undefined) return this.placeNew(newRunId(randomBytes), placement, launch);
    return this.locks.run(`placing:${runId}`, () =>
      this.deps.store.placingOnce(runId, async () => {
        // Decided already: a PlaceRun on a placed run decides nothing (domain/runs/decide.ts).
        const placed = this.active.get(runId)?.state ?? (await this.deps.store.byId(runId))?.run;
        if (placed) return placed;
        return this.placeNew(runId, placement, launch);
      }),
    );
  }

  private async placeNew(runId: string, placement: Placing, launch: Launch): Promise<Run> {
    const { body } = placement;
    // Held until the run's sandbox is on disk, where the room counts it (room.ts).
    const release = placement.sizeAvailable ? await this.deps.room.reserve(body.size) : () => undefined;
    let events: RunEvent[];
    try {
      events = this.decidePlacement(runId, placement, launch);
      // Once: a placement that Kafka did not acknowledge is answered 503, and nothing runs.
      await publishRunEvents(this.deps.producer, events);
    } catch (error) {
      release();
      throw error;
    }
    const state = events.reduce(evolve, undefined as Run | undefined);
    if (!state) throw new Error('PlaceRun left no run');
    const active: ActiveRun = {
      state,
      version: events.length,
      usagePublished: 0,
      buffers: { stdout: newBuffer(), stderr: newBuffer() },
      ended: Promise.resolve(),
    };
    this.active.set(runId, active);
    active.ended = this.drive(active, launch, release);
    // The run goes on whatever happens here: answering 503 would invite a retry, and a second run.
    if (!(await this.deps.store.waitForVersion(runId, active.version, this.deps.projectionTimeoutMs)))
      this.deps.logger.warn({ runId }, 'runs: the read model did not show a placed run in time');
    return state;
  }

  private decidePlacement(runId: string, placement: Placing, launch: Launch): RunEvent[] {
    const { body } = placement;
    return decide(
      {
        type: 'PlaceRun',
        eventId: randomUUID(),
        runId,
        orgId: placement.orgId,
        now: this.deps.now(),
        name: body.name ?? defaultRunName(randomBytes),
        size: body.size,
        command: body.command,
        envNames: Object.keys(body.env).sort(),
        files: launch.files.map((file) => ({ path: file.path, sizeBytes: file.bytes.length })),
        ceilingMicrodollars: body.ceiling_cents,
        placedBy: placement.placedBy,
        hasCredit: placement.hasCredit,
        sizeAvailable: placement.sizeAvailable,
        host: this.deps.hostId,
        network: body.network,
        template: placement.template,
      },
      undefined,
    );
  }

  /**
   * Stops a run and resolves with it as it ended; a run that had already ended is answered as it
   * is (not an error). A run of this process is stopped by killing its command's whole tree.
   */
  async stop(loaded: Loaded, by: Actor): Promise<Run> {
    const runId = loaded.run.id;
    const active = this.active.get(runId);
    if (active) {
      active.stopRequest ??= { kind: 'stop', by };
      void active.exec?.kill().catch(() => undefined);
      await active.ended;
      await this.deps.store.waitForVersion(runId, active.version, this.deps.projectionTimeoutMs);
      return active.state;
    }
    // Not this process's: ended (nothing to do), or left by a process that is gone (recovery's
    // work, which a stop need not wait for).
    return this.locks.run(runId, async () => {
      const current = (await this.deps.store.byId(runId)) ?? loaded;
      const events = decide(this.meta(current.run, { type: 'StopRun', stoppedBy: by }), current.run);
      if (events.length === 0) return current.run;
      await publishRunEvents(this.deps.producer, events);
      await this.deps.store.waitForVersion(
        runId,
        current.version + events.length,
        this.deps.projectionTimeoutMs,
      );
      await this.destroySandbox(runId);
      return events.reduce(evolve, current.run as Run | undefined) ?? current.run;
    });
  }

  /** Whether this process is carrying out the run. */
  isRunning(runId: string): boolean {
    return this.active.has(runId);
  }

  /**
   * After a restart: every run the read model holds as active that no process here carries out
   * is finished as failed, billed what was recorded (its recorded stretches are published again,
   * harmlessly, in case the last one was cut short), and its sandbox destroyed.
   */
  async recover(): Promise<string[]> {
    const end = await topicEnd(topics.run.name);
    const caughtUp = await poll(
      async () => reached(await storedOffsets(this.deps.pool, runProjectionGroupId, topics.run.name), end),
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    if (!caughtUp)
      this.deps.logger.warn(
        'runs: recovery goes on with a read model behind the topic (are the consumers running?)',
      );
    const recovered: string[] = [];
    for (const loaded of await this.deps.store.active(this.deps.hostId)) {
      const { run } = loaded;
      if (this.active.has(run.id)) continue;
      try {
        await this.locks.run(run.id, async () => {
          const failure = `The sandbox host carrying out this run stopped (a restart or a crash) while it was ${run.status}; its output up to then is kept, and it was billed the ${run.recordedSeconds} seconds recorded.`;
          await recordRunLost(this.deps.producer, run, failure, {
            now: this.deps.now(),
            stretchSeconds: this.stretch,
          });
        });
        await this.destroySandbox(run.id);
        recovered.push(run.id);
      } catch (error) {
        this.deps.logger.error({ err: error, runId: run.id }, 'runs: recovery could not finish the run');
      }
    }
    if (recovered.length > 0)
      this.deps.logger.info({ runIds: recovered }, 'runs: finished as failed on recovery');
    return recovered;
  }

  /** On shutdown: every run this process carries out is ended as failed, saying so, and its sandbox destroyed. */
  async shutdown(timeoutMs = 10_000): Promise<void> {
    const runs = [...this.active.values()];
    for (const active of runs) {
      active.stopRequest ??= { kind: 'shutdown' };
      void active.exec?.kill().catch(() => undefined);
    }
    await Promise.race([
      Promise.all(runs.map((active) => active.ended)),
      new Promise((resolve) => setTimeout(resolve, timeoutMs).unref()),
    ]);
  }

  // ---- carrying a run out ------------------------------------------------------------------------

  private async drive(active: ActiveRun, launch: Launch, releaseRoom: () => void): Promise<void> {
    const runId = active.state.id;
    let timers: NodeJS.Timeout[] = [];
    try {
      const prepared = await this.prepare(active, launch).finally(releaseRoom);
      if (!prepared) return;
      await this.record(active, { type: 'ReportStarted' });
      const exec = await this.deps.runtime.startExec(runId, active.state.command, {
        cwd: workingDirectory,
        env: { ...launch.env, ORRERY_RESULT_PATH: resultPath },
        onOutput: (stream, chunk) => this.take(active, stream, chunk),
      });
      active.exec = exec;
      if (active.stopRequest) void exec.kill().catch(() => undefined);
      timers = this.startClocks(active, exec);
      const exitCode = await exec.done;
      for (const timer of timers) clearTimeout(timer);
      await this.flushAll(active);
      await this.readResult(active);
      await this.recordEnd(active, exitCode);
    } catch (error) {
      this.deps.logger.error({ err: error, runId }, 'runs: the run failed on our side');
      await this.record(active, {
        type: 'FailRun',
        failure: `The platform could not carry the run out: ${messageOf(error)}`,
      }).catch((failed: unknown) =>
        this.deps.logger.error({ err: failed, runId }, 'runs: could not record the failure; recovery will'),
      );
    } finally {
      for (const timer of timers) clearTimeout(timer);
      for (const buffer of Object.values(active.buffers)) clearTimeout(buffer.timer);
      await this.publishUsage(active.state, active.usagePublished, active.state.billedSeconds)
        .then(() => {
          active.usagePublished = active.state.billedSeconds;
        })
        .catch((error: unknown) =>
          this.deps.logger.error({ err: error, runId }, 'runs: the last metered seconds were not published'),
        );
      await this.destroySandbox(runId);
      const dropped = active.buffers.stdout.dropped + active.buffers.stderr.dropped;
      if (dropped > 0)
        this.deps.logger.warn(
          { runId, dropped },
          `runs: output past ${outputLimitBytes} bytes a stream was dropped`,
        );
      this.active.delete(runId);
    }
  }

  /** A fresh sandbox with the working files; false when the run ended before it could start. */
  private async prepare(active: ActiveRun, launch: Launch): Promise<boolean> {
    const { runtime } = this.deps;
    const { id, size, network, template } = active.state;
    try {
      if (!active.stopRequest)
        await runtime.create(id, { size, network, ...(template === null ? {} : { template }) });
      if (!active.stopRequest) {
        const made = await runtime.exec(id, `mkdir -p ${workingDirectory} ${dirname(resultPath)}`, {
          timeoutSeconds: 60,
        });
        if (made.result.exit_code !== 0)
          throw new Error(`cannot make ${workingDirectory}: ${made.result.stderr}`);
      }
      for (const file of launch.files) {
        if (active.stopRequest) break;
        await runtime.writeFile(id, `${workingDirectory}/${file.path}`, file.bytes);
      }
    } catch (error) {
      if (!active.stopRequest) {
        this.deps.logger.warn({ err: error, runId: id }, 'runs: could not start');
        await this.record(active, {
          type: 'FailRun',
          failure: `The run could not start: ${messageOf(error)}`,
        });
        return false;
      }
    }
    if (active.stopRequest) {
      await this.recordEnd(active, null);
      return false;
    }
    return true;
  }

  /** The ceiling's timer, and the meter's: the run is stopped at the last second its ceiling pays for. */
  private startClocks(active: ActiveRun, exec: StreamingExec): NodeJS.Timeout[] {
    const { startedAt } = active.state;
    const startMs = startedAt?.getTime() ?? this.deps.now().getTime();
    const untilCeiling = startMs + ceilingSeconds(active.state) * 1000 - this.deps.now().getTime();
    const ceiling = setTimeout(
      () => {
        active.stopRequest ??= { kind: 'ceiling' };
        void exec.kill().catch(() => undefined);
      },
      Math.max(0, untilCeiling),
    );
    const meter = setInterval(() => {
      void this.meter(active).catch((error: unknown) =>
        this.deps.logger.warn({ err: error, runId: active.state.id }, 'runs: metering deferred'),
      );
    }, this.stretch * 1000);
    return [ceiling, meter];
  }

  /** Records the whole stretches so far on the run, then publishes their usage. */
  private async meter(active: ActiveRun): Promise<void> {
    await this.record(active, { type: 'MeterRun', stretchSeconds: this.stretch });
    const upTo = active.state.recordedSeconds;
    if (upTo <= active.usagePublished) return;
    await this.publishUsage(active.state, active.usagePublished, upTo);
    active.usagePublished = Math.max(active.usagePublished, upTo);
  }

  private publishUsage(run: Run, from: number, to: number): Promise<void> {
    const at = { now: this.deps.now(), stretchSeconds: this.stretch };
    return withRetries(() => publishRunUsage(this.deps.producer, run, [from, to], at));
  }

  /** Reads what the command left at $ORRERY_RESULT_PATH, if anything. */
  private async readResult(active: ActiveRun): Promise<void> {
    let contents: Uint8Array;
    try {
      contents = await this.deps.runtime.readFile(active.state.id, resultPath);
    } catch (error) {
      if (error instanceof SandboxError && /^No file at/.test(error.message)) return;
      if (error instanceof SandboxError) {
        await this.record(active, { type: 'StoreResult', contents: new Uint8Array(0) });
        return;
      }
      throw error;
    }
    await this.record(active, { type: 'StoreResult', contents });
  }

  private recordEnd(active: ActiveRun, exitCode: number | null): Promise<RunEvent[]> {
    const request = active.stopRequest;
    if (request?.kind === 'stop') return this.record(active, { type: 'StopRun', stoppedBy: request.by });
    if (request?.kind === 'ceiling') return this.record(active, { type: 'ReachCeiling' });
    if (request?.kind === 'shutdown' || exitCode === null)
      return this.record(active, {
        type: 'FailRun',
        failure:
          'The sandbox host carrying out this run shut down while it ran; its output up to then is kept.',
      });
    return this.record(active, { type: 'ReportExit', exitCode });
  }

  // ---- output ------------------------------------------------------------------------------------

  private take(active: ActiveRun, stream: OutputStream, chunk: Buffer): void {
    const buffer = active.buffers[stream];
    const room = outputLimitBytes - buffer.kept;
    if (room <= 0) {
      buffer.dropped += chunk.length;
      return;
    }
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
    buffer.dropped += chunk.length - kept.length;
    buffer.kept += kept.length;
    buffer.bytes += kept.length;
    buffer.text += buffer.decoder.decode(kept, { stream: true });
    if (buffer.bytes >= outputBatching.flushBytes) this.flush(active, stream);
    else buffer.timer ??= setTimeout(() => this.flush(active, stream), outputBatching.flushMs);
  }

  /** Appends what a stream holds; appends are recorded in call order (the run's lock). */
  private flush(active: ActiveRun, stream: OutputStream, final = false): Promise<unknown> {
    const buffer = active.buffers[stream];
    clearTimeout(buffer.timer);
    buffer.timer = undefined;
    const text = buffer.text + (final ? buffer.decoder.decode() : '');
    buffer.text = '';
    buffer.bytes = 0;
    if (text === '') return Promise.resolve();
    return this.record(active, { type: 'AppendOutput', stream, text }).catch((error: unknown) => {
      this.deps.logger.error({ err: error, runId: active.state.id }, 'runs: output lost');
    });
  }

  private async flushAll(active: ActiveRun): Promise<void> {
    await Promise.all([this.flush(active, 'stdout', true), this.flush(active, 'stderr', true)]);
  }

  // ---- deciding and recording --------------------------------------------------------------------

  private meta(run: Run, body: RunCommandBody): RunCommand {
    return {
      ...body,
      eventId: randomUUID(),
      runId: run.id,
      orgId: run.orgId,
      now: this.deps.now(),
    } as RunCommand;
  }

  /** Decides on the run's state as this process holds it, publishes, and folds the events in. */
  private record(
    active: ActiveRun,
    body: Exclude<RunCommandBody, { type: 'PlaceRun' }>,
  ): Promise<RunEvent[]> {
    return this.locks.run(active.state.id, async () => {
      const events = decide(this.meta(active.state, body), active.state);
      if (events.length === 0) return events;
      await withRetries(() => publishRunEvents(this.deps.producer, events));
      active.state = events.reduce(evolve, active.state as Run | undefined) ?? active.state;
      active.version += events.length;
      return events;
    });
  }

  private async destroySandbox(runId: string): Promise<void> {
    try {
      await this.deps.runtime.destroy(runId);
    } catch (error) {
      this.deps.logger.error({ err: error, runId }, 'runs: could not destroy the sandbox');
    }
  }
}

async function withRetries(send: () => Promise<void>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      const delay = retryDelaysMs[attempt];
      if (delay === undefined) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
