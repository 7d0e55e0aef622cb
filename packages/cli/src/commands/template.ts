import { keyedClient } from '../access.ts';
import { type ApiClient, refusalOf } from '../api-client.ts';
import type { Invocation } from '../arguments.ts';
import type { Context } from '../context.ts';
import { exitCodes, Failure } from '../failures.ts';
import { paintStatus } from '../palette.ts';
import { columns } from '../run-object.ts';

// `orrery template list | create | delete` (issue 48): what sandboxes and runs start from.
// `list` prints one template a line, newest first, name first, no header, as `orrery runs` does:
// name, status, what it was made from, its host, when it was made, id. `create` builds one from
// Debian packages and commands and follows the build until it is ready (exit 0) or failed (exit
// 1, the end of its build log on stderr); `--detach` returns once it is accepted. `delete` deletes
// one nothing stands on.

/** The template object as the API answers it, in the fields the tool reads. */
export interface TemplateObject {
  id: string;
  name: string;
  status: 'building' | 'ready' | 'failed' | 'deleted';
  source: { kind: 'recipe'; packages: string[]; run: string[] } | { kind: 'snapshot'; sandbox: string };
  host: string;
  failure: string | null;
  created_at: string;
}

function templateOf(body: unknown, what: string): TemplateObject {
  const data = (body as { data?: unknown } | undefined)?.data as TemplateObject | undefined;
  if (typeof data?.id !== 'string' || typeof data.status !== 'string')
    throw new Failure(`The API answered ${what} without a template: check --api-url.`);
  return data;
}

/** What a template was made from, in a few words. */
export function sourceText(source: TemplateObject['source']): string {
  if (source.kind === 'snapshot') return `snapshot of ${source.sandbox}`;
  const parts = [
    source.packages.length > 0 ? source.packages.join(',') : undefined,
    source.run.length > 0 ? `${source.run.length} command${source.run.length === 1 ? '' : 's'}` : undefined,
  ].filter((part) => part !== undefined);
  return `recipe ${parts.join(' + ')}`;
}

/** A template's status in a run status's colour: ready as running, failed as failed. */
const paintTemplate = (palette: Context['output']['palette'], status: string) =>
  paintStatus(palette, status === 'ready' ? 'running' : status, status);

export async function template(context: Context, invocation: Extract<Invocation, { command: 'template' }>) {
  const api = await keyedClient(context);
  switch (invocation.action) {
    case 'list':
      return list(context, api, invocation.json);
    case 'create':
      return create(context, api, invocation);
    case 'delete':
      return remove(context, api, invocation.name, invocation.json);
    default: {
      const never: never = invocation;
      throw new Error(`no template action ${JSON.stringify(never)}`);
    }
  }
}

async function list(context: Context, api: ApiClient, json: boolean) {
  const { output } = context;
  const answer = await api.get('/api/templates');
  if (json) return output.answer(answer.text);
  const templates = (answer.body as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(templates))
    throw new Failure('The API answered GET /api/templates without a list: check --api-url.');
  const { palette } = output;
  for (const line of columns(
    (templates as TemplateObject[]).map((each) => [
      { text: each.name },
      { text: each.status, paint: () => paintTemplate(palette, each.status) },
      { text: sourceText(each.source) },
      { text: each.host },
      { text: each.created_at },
      { text: each.id, paint: palette.muted },
    ]),
  ))
    output.result(line);
}

async function create(
  context: Context,
  api: ApiClient,
  invocation: Extract<Invocation, { command: 'template'; action: 'create' }>,
) {
  const { output } = context;
  const { palette } = output;
  const body = { name: invocation.name, recipe: { packages: invocation.packages, run: invocation.run } };
  const accepted = await api.post('/api/templates', { json: body });
  let current = templateOf(accepted.body, 'POST /api/templates');
  if (invocation.detach) {
    if (invocation.json) output.answer(accepted.text);
    else output.result(current.name);
    output.say(
      `Building ${current.name} ${palette.muted(`(${current.id})`)} on ${current.host}: \`orrery template list\` shows when it is ready.`,
    );
    return exitCodes.ok;
  }
  output.say(palette.muted(`${current.name} (${current.id}) building on ${current.host}…`));
  let answer = accepted;
  while (current.status === 'building') {
    await context.sleep(1000);
    answer = await api.get(`/api/templates/${encodeURIComponent(current.id)}`);
    current = templateOf(answer.body, `GET /api/templates/${current.id}`);
  }
  if (invocation.json) output.answer(answer.text);
  if (current.status === 'ready') {
    output.say(
      `${current.name} is ${paintTemplate(palette, 'ready')}: \`orrery run --template ${current.name} …\`.`,
    );
    return exitCodes.ok;
  }
  output.say(`${current.name} ${paintTemplate(palette, current.status)}; the end of its build log:`);
  output.say(current.failure ?? '');
  return exitCodes.failed;
}

async function remove(context: Context, api: ApiClient, name: string, json: boolean) {
  const { output } = context;
  const path = `/api/templates/${encodeURIComponent(name)}`;
  const answer = await api.send('DELETE', path);
  if (answer.status >= 400) throw refusalOf(answer);
  const deleted = templateOf(answer.body, `DELETE ${path}`);
  if (json) output.answer(answer.text);
  output.say(`Deleted ${deleted.name} ${output.palette.muted(`(${deleted.id})`)}.`);
}
