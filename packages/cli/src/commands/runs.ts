import { keyedClient } from '../access.ts';
import type { Invocation } from '../arguments.ts';
import type { Context } from '../context.ts';
import { Failure } from '../failures.ts';
import { paintStatus } from '../palette.ts';
import { centsText, columns, type RunObject } from '../run-object.ts';

// `orrery runs`: one run a line, newest first, name first, no header (spec 002), so `cut`, `awk`
// and `head` work on it: name, status, size, cost, when it was placed, id. `--status active` lists
// the runs holding hardware (placed or running).

export async function runs(context: Context, invocation: Extract<Invocation, { command: 'runs' }>) {
  const { output } = context;
  const query = new URLSearchParams({ status: invocation.status });
  if (invocation.limit !== undefined) query.set('limit', String(invocation.limit));
  const answer = await (await keyedClient(context)).get(`/api/runs?${query}`);
  if (invocation.json) return output.answer(answer.text);
  const list = (answer.body as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(list))
    throw new Failure('The API answered GET /api/runs without a list: check --api-url.');
  const { palette } = output;
  for (const line of columns(
    (list as RunObject[]).map((run) => [
      { text: run.name },
      { text: run.status, paint: (text) => paintStatus(palette, run.status, text) },
      { text: run.size },
      { text: centsText(run.cost_cents) },
      { text: run.placed_at },
      { text: run.id, paint: palette.muted },
    ]),
  ))
    output.result(line);
}
