import { randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { basename, isAbsolute, normalize, sep } from 'node:path';
import { keyedClient } from '../access.ts';
import { type ApiClient, Unreachable } from '../api-client.ts';
import type { EnvFlag, Invocation, NetworkFlags, RunFlags } from '../arguments.ts';
import { type Check, type Judged, judge } from '../checks.ts';
import type { Context } from '../context.ts';
import { ApiRefused, exitCodes, Failure, UsageFailure } from '../failures.ts';
import { followOutput } from '../follow.ts';
import { paintStatus } from '../palette.ts';
import { centsText, describeEnd, exitCodeOf, type RunObject, runOf } from '../run-object.ts';

// `orrery run <command…>` (spec 002, "Command-line tool behaviour in scripts"): places a run (its
// command an argument vector, or one word's shell command line: arguments.ts `runCommandOf`), then,
// attached, follows its output: the run's stdout on stdout and its stderr on stderr, unchanged,
// and everything the tool says on stderr; the tool's exit code is the run's (runs.ts). `--json`
// keeps stdout for the run as it ended, so the run's own output goes to stderr then. Ctrl-C
// detaches: the run goes on to its end or its ceiling, the tool says how to follow and stop it,
// and exits 130. `--detach` prints the name once placed. Checks judge the result; they never
// change the exit code. A placing is sent with one Idempotency-Key per invocation and sent again
// with it when its answer was lost, so a retry never places (and bills) a second run.

/** A working file's path in the run: as given when it stays under this folder, else its name. */
export function remotePath(local: string): string {
  const relative = normalize(local);
  if (isAbsolute(relative) || relative === '..' || relative.startsWith(`..${sep}`)) return basename(local);
  return relative.split(sep).join('/');
}

async function workingFiles(paths: string[]): Promise<{ path: string; contents_base64: string }[]> {
  const files = [];
  for (const local of paths) {
    let bytes: Buffer;
    try {
      if ((await stat(local)).isDirectory())
        throw new UsageFailure(`--file ${local} is a folder: send its files one by one.`);
      bytes = await readFile(local);
    } catch (error) {
      if (error instanceof UsageFailure) throw error;
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new UsageFailure(`--file ${local} cannot be read (${code}): nothing was placed.`);
    }
    files.push({ path: remotePath(local), contents_base64: bytes.toString('base64') });
  }
  return files;
}

function environment(flags: EnvFlag[], env: Context['env']): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const { name, value } of flags) {
    const resolved = value ?? env[name];
    if (resolved === undefined)
      throw new UsageFailure(`--env ${name}: ${name} is not set here; write --env ${name}=value.`);
    variables[name] = resolved;
  }
  return variables;
}

/** The flags as the body's `network`: what was not given is left to the API's defaults. */
function networkBody(flags: NetworkFlags) {
  return {
    ...(flags.egress === undefined ? {} : { egress: flags.egress }),
    ...(flags.allow.length === 0 ? {} : { allow: flags.allow }),
    ...(flags.deny.length === 0 ? {} : { deny: flags.deny }),
  };
}

/**
 * The waits, in seconds, before each new attempt at a placing whose answer was lost (the API was
 * not reached, or its answer was cut off) or that the API could not record (503 `unavailable`,
 * "a retry is safe"). About seven seconds in all, within the API's own 5-second hint.
 */
const placingRetryWaits = [1, 2, 4];

/** Worth asking again with the same key: the placing may or may not have happened. */
function placingRetryable(error: unknown): boolean {
  if (error instanceof Unreachable) return true;
  return error instanceof ApiRefused && error.status === 503 && error.code === 'unavailable';
}

/** Places the run (`POST /api/runs`), asking again as the same placing while that is safe. */
export async function placeRun(
  api: ApiClient,
  flags: RunFlags,
  context: Pick<Context, 'env' | 'sleep' | 'output'>,
) {
  const body = {
    command: flags.command,
    ceiling_cents: flags.ceilingCents,
    ...(flags.size === undefined ? {} : { size: flags.size }),
    files: await workingFiles(flags.files),
    env: environment(flags.env, context.env),
    ...(flags.name === undefined ? {} : { name: flags.name }),
    ...(flags.network === undefined ? {} : { network: networkBody(flags.network) }),
    ...(flags.template === undefined ? {} : { template: flags.template }),
  };
  // One key for this invocation, sent with every attempt: a retry after a lost answer is the same
  // placing, answered with the run the first attempt placed, never a second run billed again.
  const headers = { 'idempotency-key': randomUUID() };
  for (let attempt = 0; ; attempt++) {
    try {
      const answer = await api.post('/api/runs', { json: body, headers });
      return { answer, run: runOf(answer.body, 'POST /api/runs') };
    } catch (error) {
      const wait = placingRetryWaits[attempt];
      if (!placingRetryable(error) || wait === undefined) throw error;
      const why =
        error instanceof Unreachable
          ? `The placing's answer was lost (${error.reason})`
          : 'The API could not record the run yet';
      context.output.say(
        context.output.palette.muted(`${why}: asking again in ${wait} s with the same Idempotency-Key.`),
      );
      await context.sleep(wait);
    }
  }
}

/** Each check judged against the run's result, or against none (and why). */
async function judged(api: ApiClient, run: RunObject, checks: Check[]): Promise<Judged[]> {
  let result: { value: unknown } | { none: string };
  if (run.has_result) {
    const answer = await api.get(`/api/runs/${encodeURIComponent(run.id)}/result`);
    result = { value: (answer.body as { data?: unknown }).data };
  } else
    result = {
      none: run.result_refused
        ? `the run's result was not kept: ${run.result_refused}`
        : 'the run wrote no result to $ORRERY_RESULT_PATH',
    };
  return checks.map((check) => judge(check, result));
}

export async function run(context: Context, invocation: Extract<Invocation, { command: 'run' }>) {
  const { output } = context;
  const { palette } = output;
  const flags = invocation.run;
  if (flags.detach && flags.checks.length > 0)
    throw new UsageFailure('--check judges the run once it ends: leave out --detach to judge it.');
  const api = await keyedClient(context);
  // Attached, Ctrl-C detaches from here on, while placing too: the placing is not cut off, so the
  // tool can still say which run goes on.
  const interrupt = new AbortController();
  const stopListening = flags.detach ? () => {} : context.onInterrupt(() => interrupt.abort());
  let placed: Awaited<ReturnType<typeof placeRun>>;
  let followed: Awaited<ReturnType<typeof followOutput>>;
  try {
    placed = await placeRun(api, flags, context);
    if (flags.detach) {
      if (invocation.json) output.answer(placed.answer.text);
      else output.result(placed.run.name);
      output.say(
        `Placed ${placed.run.name} ${palette.muted(`(${placed.run.id})`)}: follow it with \`orrery logs -f ${placed.run.name}\`.`,
      );
      return exitCodes.ok;
    }
    output.say(
      palette.muted(
        `${placed.run.name} (${placed.run.id}) placed on ${placed.run.size}${templateNote(placed.run)}${networkNote(placed.run)}, ceiling ${centsText(placed.run.ceiling_cents)}; Ctrl-C detaches.`,
      ),
    );
    followed = interrupt.signal.aborted
      ? { kind: 'interrupted' }
      : await followOutput({
          api,
          run: placed.run.id,
          follow: true,
          signal: interrupt.signal,
          sleep: context.sleep,
          onChunk: (chunk) => output.relay(invocation.json ? 'stderr' : chunk.stream, chunk.text),
        });
  } finally {
    stopListening();
  }
  const { name, id } = placed.run;
  if (followed.kind === 'interrupted') {
    output.say('');
    output.say(
      `Detached from ${name} ${palette.muted(`(${id})`)}: it is ${paintStatus(palette, 'running', 'still running')}, until it ends or reaches its ceiling of ${centsText(placed.run.ceiling_cents)}.`,
    );
    output.say(`  follow it:  orrery logs -f ${name}`);
    output.say(`  stop it:    orrery stop ${name}`);
    return exitCodes.interrupted;
  }
  if (followed.kind !== 'ended') throw new Failure(`The output of ${name} ended before the run did.`);

  const ended = runOf(followed.end.run, 'the output’s last line');
  const checks = flags.checks.length > 0 ? await judged(api, ended, flags.checks) : undefined;
  if (invocation.json) {
    // The run as it ended, as the API answers it: GET /api/runs/:id, whole.
    const answer = await api.get(`/api/runs/${encodeURIComponent(id)}`);
    if (checks) output.json({ ...(answer.body as Record<string, unknown>), checks });
    else output.answer(answer.text);
  }
  for (const check of checks ?? []) output.say(checkLine(check, palette));
  output.say(describeEnd(ended, palette));
  return exitCodeOf(ended);
}

/** What the placing line says of the template its sandbox starts from. */
function templateNote(run: RunObject): string {
  return run.template ? ` from template ${run.template}` : '';
}

/** What the placing line says of a network that is not the open default. */
function networkNote(run: RunObject): string {
  const network = run.network;
  if (network === undefined) return '';
  if (network.egress === 'none') return ' without a network';
  const parts = [
    network.allow.length > 0 ? `only ${network.allow.join(', ')}` : undefined,
    network.deny.length > 0 ? `not ${network.deny.join(', ')}` : undefined,
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? '' : ` reaching ${parts.join(', ')}`;
}

function checkLine(check: Judged, palette: Context['output']['palette']): string {
  const verdict = check.verdict === 'passed' ? palette.finished('passed') : palette.failed(check.verdict);
  const actual = 'actual' in check ? ` (${JSON.stringify(check.actual)})` : '';
  const reason = check.reason ? `: ${check.reason}` : '';
  return `check ${verdict}: ${check.name}${actual}${reason}`;
}
