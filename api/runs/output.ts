import { PassThrough } from 'node:stream';
import type { OutputQuery } from '../../domain/runs/requests.ts';
import { isActive } from '../../domain/runs/run.ts';
import type { Logger } from '../../platform/logger.ts';
import { runData } from '../../schemas/run-answer.ts';
import type { OutputLine, RunStore } from '../../stores/runs.ts';

// `GET /api/runs/:name/output` (issue 16): the run's output as NDJSON, read from the read model
// (`run_output`), one `{ seq, stream, text }` per chunk in the order it was printed, and, once the
// run has ended, a last line `{ status, exit_code, run }`. With `follow=true` the answer stays
// open and sends chunks as the projection appends them, then the end line once the run ends; a
// follower that connects after the end gets everything, then the end line.
//
// The end is certain to come after all the output: a run's events share one partition, its
// runner records the end after its last chunk, and the projection applies them in that order. So
// once the row is ended, one more read finds whatever was appended since the last.

const pageSize = 1000;
/** How often a follower asks the read model for more: about as often as the runner appends. */
const followIntervalMs = 100;

export function outputStream(
  deps: { store: RunStore; now: () => Date; logger: Logger },
  runId: string,
  query: OutputQuery,
): { body: PassThrough; close: () => void } {
  const body = new PassThrough();
  let closed = false;
  const close = () => {
    closed = true;
  };
  const write = (line: unknown) => body.write(`${JSON.stringify(line)}\n`);
  const from = { afterPosition: 0, stream: query.stream, afterSeq: query.after_seq, limit: pageSize };

  /** Writes every line past the cursor; false if the client went away. */
  async function drain(): Promise<boolean> {
    for (;;) {
      if (closed) return false;
      const lines: OutputLine[] = await deps.store.output(runId, from);
      for (const { seq, stream, text } of lines) write({ seq, stream, text });
      const last = lines[lines.length - 1];
      if (last) from.afterPosition = last.position;
      if (lines.length < pageSize) return true;
    }
  }

  void (async () => {
    for (;;) {
      if (!(await drain())) return;
      const current = await deps.store.byId(runId);
      if (!current) return;
      if (!isActive(current.run.status)) {
        if (!(await drain())) return;
        const run = runData(current.run, deps.now());
        write({ status: run.status, exit_code: run.exit_code, run });
        return;
      }
      if (!query.follow) return;
      await new Promise((resolve) => setTimeout(resolve, followIntervalMs));
    }
  })()
    .catch((error: unknown) => {
      deps.logger.error({ err: error, runId }, 'runs: reading the output failed');
      body.destroy(error instanceof Error ? error : new Error(String(error)));
    })
    .finally(() => body.end());
  return { body, close };
}
