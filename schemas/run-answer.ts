import { z } from 'zod';
import { centsOfMicrodollars, hardwareMicrodollarsPerSecond } from '../domain/billing/price.ts';
import type { Actor } from '../domain/runs/events.ts';
import { costMicrodollars, meteredSeconds, type Run, runStatuses } from '../domain/runs/run.ts';
import { sandboxSizes } from '../domain/sandboxes/events.ts';
import { networkData, networkObject } from './network-answer.ts';

// The run object (issue 16) as the API answers it, and the one function that writes it from a
// run's state: the run routes answer it (api/runs/), and the sandbox host that carries a run out
// answers it to the API for a placement and a stop (sandbox-host/run-routes.ts), the run as its
// own command left it.

const actor = z.object({
  kind: z.enum(['key', 'person']),
  key_id: z.string().nullable().describe('the API key, for `key`'),
  person_id: z.string().nullable().describe('the person: at the dashboard, or who made the key'),
});

export const runObject = z.object({
  id: z.string().describe('`run_…`, for good; `name` names the newest run of that name'),
  name: z.string(),
  status: z.enum(runStatuses),
  size: z.enum(sandboxSizes),
  network: networkObject,
  template: z.string().nullable().describe('the template its sandbox was made from, or null: the base'),
  command: z
    .union([z.string(), z.array(z.string())])
    .describe(
      'as it was placed: a string is a shell command line, run by `/bin/sh -c`; an array is the program and its arguments, run with no shell',
    ),
  env_names: z.array(z.string()).describe("the variables' names; their values are never shown"),
  files: z.array(z.object({ path: z.string(), size_bytes: z.number().int() })),
  ceiling_cents: z.number(),
  cost_cents: z.number().describe('so far while it runs; cents to four decimal places'),
  billed_seconds: z.number().int().describe('seconds on hardware so far (each second begun counts)'),
  price_per_second_cents: z.number(),
  exit_code: z.number().int().nullable().describe('set once the command exited by itself'),
  failure: z.string().nullable().describe('why a failed run never ran to its exit'),
  placed_by: actor,
  stopped_by: actor.nullable(),
  placed_at: z.string(),
  started_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  has_result: z.boolean(),
  result_refused: z.string().nullable().describe('why the file at $ORRERY_RESULT_PATH was not kept'),
  output: z.object({
    stdout_seq: z.number().int().describe('the last sequence number on stdout (0: nothing yet)'),
    stderr_seq: z.number().int(),
  }),
});

const actorData = (who: Actor): z.output<typeof actor> =>
  who.kind === 'key'
    ? { kind: 'key', key_id: who.keyId, person_id: who.personId }
    : { kind: 'person', key_id: null, person_id: who.personId };

export function runData(run: Run, now: Date): z.output<typeof runObject> {
  return {
    id: run.id,
    name: run.name,
    status: run.status,
    size: run.size,
    network: networkData(run.network),
    template: run.template,
    command: run.command,
    env_names: run.envNames,
    files: run.files.map((file) => ({ path: file.path, size_bytes: file.sizeBytes })),
    ceiling_cents: centsOfMicrodollars(run.ceilingMicrodollars),
    cost_cents: centsOfMicrodollars(costMicrodollars(run, now)),
    billed_seconds: meteredSeconds(run, now),
    price_per_second_cents: centsOfMicrodollars(hardwareMicrodollarsPerSecond[run.size]),
    exit_code: run.exitCode,
    failure: run.failure,
    placed_by: actorData(run.placedBy),
    stopped_by: run.stoppedBy ? actorData(run.stoppedBy) : null,
    placed_at: run.placedAt.toISOString(),
    started_at: run.startedAt?.toISOString() ?? null,
    ended_at: run.endedAt?.toISOString() ?? null,
    has_result: run.result !== null,
    result_refused: run.resultRefused,
    output: { stdout_seq: run.lastSeq.stdout, stderr_seq: run.lastSeq.stderr },
  };
}
