import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:os';
import { Readable, type Writable } from 'node:stream';
import { drained } from './enter.ts';
import { hostEnv } from './host.ts';
import { signalGroup } from './process-tree.ts';

// The moving parts of streamed files (files.ts): a process entered into the sandbox whose pipes
// stay open to the caller, a body of a known size read from its stdout, and a source fed into its
// stdin. Both directions move a chunk only when the other end has taken the previous ones, so the
// host holds a few pipe buffers per file, never the file: a paused consumer pauses the child's
// stdout (the child then blocks on a full pipe), and a full stdin pauses the source.

const keptOutputBytes = 64 * 1024;

export interface Exit {
  /** 128 + the signal's number when killed. */
  exitCode: number;
  /** The first 64 KiB of stdout (only when collected) and of stderr. */
  stdout: Buffer;
  stderr: Buffer;
  timedOut: boolean;
}

export interface Entered {
  child: ChildProcess;
  /** Resolves once the process exited and what it printed was drained. */
  exited: Promise<Exit>;
  /** SIGKILL to the process group: every process it started, inside the sandbox too. */
  kill(): void;
}

export interface EnterOptions {
  /** A pipe to the child's stdin. */
  input?: boolean;
  /** A pipe to the child's fd 3, for a word from the host after the input (files.ts, writing). */
  control?: boolean;
  /** Keep stdout for `exited` instead of leaving it to the caller. */
  collectStdout?: boolean;
  timeoutMs: number;
}

/** Starts `argv` (from enterArgv) in its own process group, killed whole at the deadline. */
export function spawnEntered(argv: string[], options: EnterOptions): Entered {
  const child = spawn(argv[0]!, argv.slice(1), {
    detached: true,
    env: hostEnv,
    stdio: [options.input ? 'pipe' : 'ignore', 'pipe', 'pipe', ...(options.control ? ['pipe' as const] : [])],
  });
  let timedOut = false;
  const kill = () => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null)
      signalGroup(child.pid, 'SIGKILL');
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, options.timeoutMs);
  // The child may exit before taking all we send; the exit code says why.
  for (const pipe of [child.stdin, child.stdio[3]]) pipe?.on('error', () => {});
  const stdout = options.collectStdout ? keep(child.stdout as Readable) : undefined;
  const stderr = keep(child.stderr as Readable);
  const exited = new Promise<Exit>((resolve, reject) => {
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const exitCode = code ?? 128 + (signal === null ? 0 : constants.signals[signal]);
      const pipes = [stderr, ...(stdout ? [stdout] : [])];
      void Promise.all(pipes.map((pipe) => pipe.drained())).then(() =>
        resolve({
          exitCode,
          stdout: stdout?.bytes() ?? Buffer.alloc(0),
          stderr: stderr.bytes(),
          timedOut,
        }),
      );
    });
  });
  exited.catch(() => {}); // a spawn failure also ends the pipes, and whoever reads them reports it
  return { child, exited, kill };
}

function keep(stream: Readable) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let closed = false;
  stream.on('data', (chunk: Buffer) => {
    if (kept >= keptOutputBytes) return;
    chunks.push(chunk.subarray(0, keptOutputBytes - kept));
    kept += Math.min(chunk.length, keptOutputBytes - kept);
  });
  stream.on('close', () => {
    closed = true;
  });
  return { bytes: () => Buffer.concat(chunks), drained: () => drained(stream, closed) };
}

export interface BodyHooks {
  /** The error the body ends with when the source ends before `sizeBytes` came. */
  short(received: number): Promise<Error>;
  /** Ends the producer when the consumer destroyed the body early; resolves once it is gone. */
  stop(): Promise<void>;
}

/**
 * Exactly `sizeBytes` bytes: `first`, then what `source` gives, cut at the size. Fewer end the
 * body with `hooks.short`'s error, so no consumer takes a short file for a whole one. `source`
 * flows only while the body's buffer has room.
 */
export function sizedBody(source: Readable, sizeBytes: number, first: Buffer, hooks: BodyHooks): Readable {
  let remaining = sizeBytes;
  const body = new Readable({
    read: () => source.resume(),
    destroy: (error, callback) => {
      release();
      if (remaining === 0) return callback(error);
      void hooks.stop().then(
        () => callback(error),
        () => callback(error),
      );
    },
  });
  const take = (chunk: Buffer) => {
    const part = chunk.subarray(0, remaining);
    remaining -= part.length;
    if (part.length > 0 && !body.push(part)) source.pause();
    if (remaining === 0) {
      release();
      body.push(null);
    }
  };
  const ended = () => {
    release();
    if (remaining > 0) {
      void hooks.short(sizeBytes - remaining).then((error) => body.destroy(error));
    }
  };
  const release = () => {
    source.off('data', take);
    source.off('end', ended);
    source.off('close', ended);
    // Whatever follows the size is not the file's; let the producer finish into nothing.
    if (remaining === 0) source.resume();
  };
  source.pause();
  source.on('data', take);
  source.on('end', ended);
  source.on('close', ended);
  take(first);
  return body;
}

/** The source stopped without ending (destroyed, a connection reset): the body is not whole. */
export class SourceEndedEarly extends Error {}

/** The sink failed (the child exited before taking everything): its exit code says why. */
export class SinkFailed extends Error {}

/**
 * Writes `source` into `sink` as fast as the sink takes it, counting bytes; resolves with the
 * count once the source ended (the sink is left open). `check` sees the count before each chunk
 * is written and may refuse it. On a refusal the source is left paused where it stopped, not
 * destroyed: its owner decides what to do with the rest (an HTTP server answers, then drains or
 * closes).
 */
export function feed(
  source: Readable,
  sink: Writable,
  check: (count: number) => Error | undefined,
): Promise<number> {
  return new Promise((resolve, reject) => {
    let count = 0;
    const settle = (error: Error | undefined) => {
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('close', onClose);
      source.off('error', onError);
      sink.off('drain', onDrain);
      sink.off('error', onSinkError);
      sink.off('close', onSinkClose);
      if (error === undefined) return resolve(count);
      source.pause();
      reject(error);
    };
    const onData = (chunk: unknown) => {
      const bytes = asBytes(chunk);
      if (bytes === undefined) return settle(new TypeError('the source gives something other than bytes'));
      count += bytes.length;
      const refusal = check(count);
      if (refusal !== undefined) return settle(refusal);
      if (!sink.write(bytes)) source.pause();
    };
    const onDrain = () => source.resume();
    const onEnd = () => settle(undefined);
    const onClose = () => settle(new SourceEndedEarly('the body stopped before its end'));
    const onError = (error: Error) => settle(error);
    const onSinkError = (error: Error) => settle(new SinkFailed(error.message));
    const onSinkClose = () => settle(new SinkFailed('the pipe closed'));
    if (source.destroyed || source.readableEnded) {
      return reject(new SourceEndedEarly('the source was already read or destroyed'));
    }
    source.on('error', onError);
    source.on('end', onEnd);
    source.on('close', onClose);
    sink.on('drain', onDrain);
    sink.on('error', onSinkError);
    sink.on('close', onSinkClose);
    source.on('data', onData);
    source.resume();
  });
}

function asBytes(chunk: unknown): Uint8Array | undefined {
  if (chunk instanceof Uint8Array) return chunk;
  if (typeof chunk === 'string') return Buffer.from(chunk);
  return undefined;
}

/** The whole of an opened file, in one allocation of its known size. */
export async function collectSized(bytes: Readable, sizeBytes: number): Promise<Uint8Array> {
  const whole = new Uint8Array(sizeBytes);
  let offset = 0;
  for await (const chunk of bytes) {
    whole.set(chunk as Buffer, offset);
    offset += (chunk as Buffer).length;
  }
  return whole;
}
