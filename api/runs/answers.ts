import { z } from 'zod';
import { outputStreams } from '../../domain/runs/events.ts';
import { runStatuses } from '../../domain/runs/run.ts';
import { runObject } from '../../schemas/run-answer.ts';

// The answers of the run routes, as zod schemas (they document the routes in /openapi.json) and
// the functions that write them. Every answer is `{ data: ... }`, except the output (NDJSON); the
// run object itself is schemas/run-answer.ts's, which the sandbox hosts write too.

export const data = <T extends z.ZodType>(schema: T) => z.object({ data: schema });

/** One NDJSON line of output. */
export const outputLine = z.object({
  seq: z.number().int(),
  stream: z.enum(outputStreams),
  text: z.string(),
});

/** The last NDJSON line once the run has ended: its status, exit code, and the run. */
export const endLine = z.object({
  status: z.enum(runStatuses),
  exit_code: z.number().int().nullable(),
  run: runObject,
});

/** What /openapi.json shows for the output route: NDJSON, each line one of the two. */
export const outputAnswer = z.unknown().meta({
  description:
    'NDJSON: one `{ seq, stream, text }` per chunk of output in the order it was printed (`seq` counts per stream from 1), then, once the run has ended, one `{ status, exit_code, run }`.',
  content: {
    'application/x-ndjson': {
      schema: {
        type: 'string',
        description: 'lines of JSON: `{ seq, stream, text }`, then `{ status, exit_code, run }` once ended',
      },
    },
  },
});

export const resultAnswer = data(z.record(z.string(), z.unknown()).describe('the JSON object the run wrote'));
