import { keyedClient } from '../access.ts';
import type { Invocation } from '../arguments.ts';
import type { Context } from '../context.ts';
import { describeEnd, runOf } from '../run-object.ts';

// `orrery stop <name>`: exit 0 whether it stopped the run or the run had already ended (spec 002);
// the API answers the run as it ended either way, which `--json` prints as sent.

export async function stop(context: Context, invocation: Extract<Invocation, { command: 'stop' }>) {
  const { output } = context;
  const path = `/api/runs/${encodeURIComponent(invocation.name)}/stop`;
  const answer = await (await keyedClient(context)).post(path, {});
  if (invocation.json) output.answer(answer.text);
  output.say(describeEnd(runOf(answer.body, `POST ${path}`), output.palette));
}
