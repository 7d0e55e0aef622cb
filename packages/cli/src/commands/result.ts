import { keyedClient } from '../access.ts';
import type { Invocation } from '../arguments.ts';
import type { Context } from '../context.ts';
import { Failure } from '../failures.ts';
import { valueAt } from '../paths.ts';

// `orrery result <name> [path]`: the JSON object the run wrote to $ORRERY_RESULT_PATH, or the value
// at a dotted path in it (spec 002). A string is printed as its text (as `jq -r` does), so
// `$(orrery result train model.path)` is the path itself; anything else as JSON. `--json` prints
// the API's answer as sent.

export async function result(context: Context, invocation: Extract<Invocation, { command: 'result' }>) {
  const { output } = context;
  const path = `/api/runs/${encodeURIComponent(invocation.name)}/result`;
  const answer = await (await keyedClient(context)).get(path);
  if (invocation.json) return output.answer(answer.text);
  const data = (answer.body as { data?: unknown } | undefined)?.data;
  if (data === undefined)
    throw new Failure(`The API answered GET ${path} without a result: check --api-url.`);
  let value: unknown = data;
  if (invocation.path) {
    const found = valueAt(data, invocation.path);
    if (!found.found)
      throw new Failure(`The result of ${invocation.name} has no value at ${invocation.path.join('.')}.`);
    value = found.value;
  }
  output.result(typeof value === 'string' ? value : JSON.stringify(value, null, 2));
}
