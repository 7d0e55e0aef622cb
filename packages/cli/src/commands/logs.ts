import { keyedClient } from '../access.ts';
import type { Invocation } from '../arguments.ts';
import type { Context } from '../context.ts';
import { exitCodes } from '../failures.ts';
import { followOutput } from '../follow.ts';
import { describeEnd, exitCodeOf, runOf } from '../run-object.ts';

// `orrery logs <name> [-f]`: the run's output, its stdout on stdout and its stderr on stderr,
// unchanged. With -f it follows until the run ends and exits with the run's exit code (spec 002);
// without, it prints what there is and exits 0. `--json` prints the API's NDJSON lines as sent:
// `{ seq, stream, text }`, then `{ status, exit_code, run }` once the run has ended.

export async function logs(context: Context, invocation: Extract<Invocation, { command: 'logs' }>) {
  const { output } = context;
  const api = await keyedClient(context);
  const followed = await followOutput({
    api,
    run: invocation.name,
    follow: invocation.follow,
    // Ctrl-C ends `logs -f` as any program: nothing is attached to the run.
    signal: new AbortController().signal,
    sleep: context.sleep,
    onChunk: (chunk, line) =>
      invocation.json ? output.answer(line) : output.relay(chunk.stream, chunk.text),
  });
  if (followed.kind !== 'ended') return exitCodes.ok;
  const run = runOf(followed.end.run, 'the output’s last line');
  if (invocation.json) output.answer(followed.line);
  else output.say(describeEnd(run, output.palette));
  return invocation.follow ? exitCodeOf(run) : exitCodes.ok;
}
