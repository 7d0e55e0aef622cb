import { keyedClient } from '../access.ts';
import type { Context } from '../context.ts';
import { Failure } from '../failures.ts';
import type { Palette } from '../palette.ts';

// `orrery whoami`: GET /api/me, the key, its org and the person who made it.

interface Me {
  org: { id: string; name: string };
  key: { id: string; name: string };
  person: { email: string; name: string } | null;
}

function meOf(body: unknown): Me {
  const data = (body as { data?: Partial<Me> } | undefined)?.data;
  if (!data?.org?.name || !data.key?.name || data.person === undefined)
    throw new Failure('The API answered GET /api/me without the key, org and person: check --api-url.');
  return data as Me;
}

/** `ada@example.com (Ada's org, laptop)`, or `operator key (Acme)` for a key no person made. */
export function describeMe(body: unknown, palette: Palette): string {
  const me = meOf(body);
  return me.person
    ? `${palette.strong(me.person.email)} (${me.org.name}, ${me.key.name})`
    : `${palette.strong('operator key')} (${me.org.name})`;
}

export async function whoami(context: Context, options: { json?: boolean }): Promise<void> {
  const answer = await (await keyedClient(context)).get('/api/me');
  if (options.json) context.output.answer(answer.text);
  else context.output.result(describeMe(answer.body, context.output.palette));
}
