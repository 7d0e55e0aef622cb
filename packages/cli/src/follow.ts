import type { ApiClient } from './api-client.ts';
import { ApiRefused, Failure } from './failures.ts';
import type { Sleep } from './sleep.ts';

// A run's output as `GET /api/runs/:name/output` sends it (README "Runs"): NDJSON, one
// `{ seq, stream, text }` per chunk in the order it was printed (`seq` counts per stream from 1),
// then `{ status, exit_code, run }` once the run has ended. Followed (`follow=true`), the answer
// stays open until that last line. A connection lost on the way is opened again and the chunks
// already handed over are skipped by their sequence numbers, so each stream's chunks are handed
// over once each, in order.

export type OutputStream = 'stdout' | 'stderr';

export interface Chunk {
  seq: number;
  stream: OutputStream;
  text: string;
}

export interface EndLine {
  status: string;
  exit_code: number | null;
  run: Record<string, unknown> & { id: string; name: string; status: string };
}

export type Followed =
  | { kind: 'ended'; end: EndLine; line: string }
  /** Not followed, and the run has not ended yet. */
  | { kind: 'not_ended' }
  /** `signal` was aborted (Ctrl-C). */
  | { kind: 'interrupted' };

export interface FollowOptions {
  api: ApiClient;
  /** The run's id or name. */
  run: string;
  follow: boolean;
  signal: AbortSignal;
  sleep: Sleep;
  /** Each chunk, once, with its line as the API sent it. */
  onChunk(chunk: Chunk, line: string): void;
}

/** How many times in a row a lost connection is opened again before the tool gives up. */
const reconnects = 10;

const isChunk = (value: Record<string, unknown>): value is Chunk & Record<string, unknown> =>
  typeof value.seq === 'number' &&
  (value.stream === 'stdout' || value.stream === 'stderr') &&
  typeof value.text === 'string';

const isEnd = (value: Record<string, unknown>): value is EndLine & Record<string, unknown> =>
  typeof value.status === 'string' && typeof value.run === 'object' && value.run !== null;

export async function followOutput(options: FollowOptions): Promise<Followed> {
  const { api, signal } = options;
  const last: Record<OutputStream, number> = { stdout: 0, stderr: 0 };
  const path = `/api/runs/${encodeURIComponent(options.run)}/output${options.follow ? '?follow=true' : ''}`;
  let failures = 0;
  for (;;) {
    let lost: unknown;
    try {
      const body = await api.stream(path, signal);
      for await (const line of lines(body)) {
        const value = JSON.parse(line) as Record<string, unknown>;
        if (isChunk(value)) {
          if (value.seq <= last[value.stream]) continue;
          last[value.stream] = value.seq;
          failures = 0;
          options.onChunk({ seq: value.seq, stream: value.stream, text: value.text }, line);
        } else if (isEnd(value)) return { kind: 'ended', end: value, line };
      }
      if (!options.follow) return { kind: 'not_ended' };
      lost = new Error('the API ended the answer before the run ended');
    } catch (error) {
      if (signal.aborted) return { kind: 'interrupted' };
      // A refusal (the run is not there, the key is revoked) is the answer, not a lost connection.
      if (error instanceof ApiRefused) throw error;
      lost = error;
    }
    failures += 1;
    if (failures > reconnects)
      throw new Failure(
        `Lost the run's output and could not read it again (${lost instanceof Error ? lost.message : lost}); the run goes on: follow it with \`orrery logs -f ${options.run}\`.`,
      );
    await options.sleep(Math.min(failures, 5));
    if (signal.aborted) return { kind: 'interrupted' };
  }
}

/** The lines of an NDJSON body, as they arrive. */
async function* lines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = '';
  for await (const bytes of body) {
    pending += decoder.decode(bytes, { stream: true });
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line !== '') yield line;
      newline = pending.indexOf('\n');
    }
  }
  pending += decoder.decode();
  if (pending.trim() !== '') yield pending;
}
