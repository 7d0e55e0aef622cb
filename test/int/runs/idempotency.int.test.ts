import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantCredit } from '../../../api/admin/commands.ts';
import { eventually } from '../../harness/platform.ts';
import { givenRunApi, prepareTimeoutMs, type RunAnswer, type RunApi } from './given.ts';

// `POST /api/runs` with an Idempotency-Key (issue 50, item 5; domain/idempotency.ts): a placing
// retried with the same key and body, after its answer was lost or while it is still being
// placed, answers the run the first attempt placed, placed and billed once. The same key with
// another body is 422 `idempotency_key_reused`; a key a refused attempt claimed still places.
// Over real HTTP, so a lost answer is a connection cut after the run was placed.

let api: RunApi;
/** Keys whose next placing's answer is lost: the connection is cut once the run is placed. */
const losing = new Set<string>();
beforeAll(async () => {
  api = await givenRunApi({ meterStretchSeconds: 2 }, (app) =>
    app.addHook('onSend', async (request, _reply, payload) => {
      const key = request.headers['idempotency-key'];
      if (
        request.method === 'POST' &&
        request.url === '/api/runs' &&
        typeof key === 'string' &&
        losing.delete(key)
      )
        request.raw.socket.destroy();
      return payload;
    }),
  );
}, prepareTimeoutMs);
afterAll(() => api.cleanup());

/** `POST /api/runs` over HTTP with a key. */
function place(body: Record<string, unknown>, bearer: string, key: string | undefined): Promise<Response> {
  return fetch(`${api.baseUrl}/api/runs`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${bearer}`,
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'idempotency-key': key }),
    },
    body: JSON.stringify(body),
  });
}

/** An answer's JSON: the run, or the refusal. */
const answerOf = async (answer: Response) =>
  (await answer.json()) as { data: RunAnswer; error: { code: string; param?: string; message: string } };

const runsOf = async (bearer: string) =>
  (await api.call('GET', '/api/runs?limit=200', { bearer })).json().data as RunAnswer[];

function ended(id: string, bearer: string): Promise<RunAnswer> {
  return eventually(
    async () => {
      const run = (await api.call('GET', `/api/runs/${id}`, { bearer })).json().data as RunAnswer;
      return run.status === 'placed' || run.status === 'running' ? undefined : run;
    },
    60_000,
    `run ${id} to end`,
  );
}

/** The run seconds in the org's billing summary, once they are `seconds`; fails if they pass it. */
async function billedSeconds(bearer: string, seconds: number): Promise<void> {
  const meter = () =>
    api
      .call('GET', '/api/billing/summary', { bearer })
      .then(
        (answer) =>
          answer.json().data.charges.find((charge: { model: string }) => charge.model === 'run:small')
            ?.seconds as number | undefined,
      );
  await eventually(
    async () => ((await meter()) === seconds ? true : undefined),
    15_000,
    `${seconds} s billed`,
  );
  // And no more come: a second run would have billed its own.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  expect(await meter()).toBe(seconds);
}

describe('a placing retried with its Idempotency-Key', () => {
  it('after its answer was lost: the same run, placed once, billed once', async () => {
    const org = await api.newOrg('Lost answer');
    const key = randomUUID();
    const body = { command: ['sh', '-c', 'sleep 3; echo "done: $1"', 'sh', 'a b'], ceiling_cents: 1 };
    losing.add(key);
    await expect(place(body, org.key, key)).rejects.toThrow();
    // The run was placed all the same: the caller just never heard.
    const [first] = await eventually(async () => {
      const runs = await runsOf(org.key);
      return runs.length > 0 ? runs : undefined;
    }, 10_000);

    const retry = await place(body, org.key, key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const run = (await answerOf(retry)).data;
    expect(run.id).toBe(first!.id);
    expect(run.command).toEqual(body.command);

    const done = await ended(run.id, org.key);
    expect(done).toMatchObject({ status: 'succeeded', exit_code: 0 });
    expect((await runsOf(org.key)).map((each) => each.id)).toEqual([run.id]);
    await billedSeconds(org.key, done.billed_seconds as number);

    // Once it has ended too: the run as it is now, nothing placed again.
    const late = await place(body, org.key, key);
    expect(late.status).toBe(201);
    expect((await answerOf(late)).data).toMatchObject({ id: run.id, status: 'succeeded' });
    expect(await runsOf(org.key)).toHaveLength(1);
  });

  it('while the first is still being placed: both answer the one run', async () => {
    const org = await api.newOrg('Concurrent retry');
    const key = randomUUID();
    const body = { command: ['sleep', '2'], ceiling_cents: 1 };
    const answers = await Promise.all([place(body, org.key, key), place(body, org.key, key)]);
    expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
    const [a, b] = await Promise.all(answers.map(async (answer) => (await answerOf(answer)).data));
    expect(b!.id).toBe(a!.id);
    const done = await ended(a!.id, org.key);
    expect(await runsOf(org.key)).toHaveLength(1);
    await billedSeconds(org.key, done.billed_seconds as number);
  });

  it('without a key, two placings are two runs', async () => {
    const org = await api.newOrg('No key');
    const body = { command: ['true'], ceiling_cents: 1 };
    const [a, b] = await Promise.all([place(body, org.key, undefined), place(body, org.key, undefined)]);
    const ids = await Promise.all([a, b].map(async (answer) => (await answerOf(answer!)).data.id));
    expect(new Set(ids).size).toBe(2);
    await Promise.all(ids.map((id) => ended(id, org.key)));
  });

  it('after the first attempt was refused: the key places the run once the refusal is gone', async () => {
    const org = await api.newOrg('Refused first', 0);
    const key = randomUUID();
    const body = { command: ['echo', 'placed at last'], ceiling_cents: 1 };
    const refused = await place(body, org.key, key);
    expect(refused.status).toBe(402);
    expect(await runsOf(org.key)).toEqual([]);

    await grantCredit(api.platform.admin, org.orgId, 100, 'idempotency test');
    await eventually(async () => (api.platform.directory.hasCredit(org.orgId) ? true : undefined), 10_000);
    const placed = await place(body, org.key, key);
    expect(placed.status).toBe(201);
    expect(placed.headers.get('idempotent-replayed')).toBeNull();
    const run = (await answerOf(placed)).data;
    expect((await ended(run.id, org.key)).status).toBe('succeeded');
    const again = await place(body, org.key, key);
    expect((await answerOf(again)).data.id).toBe(run.id);
    expect(await runsOf(org.key)).toHaveLength(1);
  });
});

describe('a key refused', () => {
  it('the same key with another body: 422 `idempotency_key_reused`, nothing placed', async () => {
    const org = await api.newOrg('Reused key');
    const key = randomUUID();
    const first = await place({ command: ['true'], ceiling_cents: 1 }, org.key, key);
    expect(first.status).toBe(201);
    const other = await place({ command: ['false'], ceiling_cents: 1 }, org.key, key);
    expect(other.status).toBe(422);
    expect((await answerOf(other)).error).toMatchObject({
      code: 'idempotency_key_reused',
      param: 'Idempotency-Key',
      message: expect.stringMatching(/new key/),
    });
    // The string form of the same words is another body too.
    const asString = await place({ command: 'true', ceiling_cents: 1 }, org.key, key);
    expect((await answerOf(asString)).error.code).toBe('idempotency_key_reused');
    expect(await runsOf(org.key)).toHaveLength(1);
  });

  it.each([
    ['longer than 255 characters', 'k'.repeat(256)],
    ['holding a space', 'two words'],
  ])('a key %s: 422 naming `Idempotency-Key`, nothing placed', async (_, key) => {
    const org = await api.newOrg('Malformed key');
    const answer = await place({ command: ['true'], ceiling_cents: 1 }, org.key, key);
    expect(answer.status).toBe(422);
    expect((await answerOf(answer)).error).toMatchObject({
      code: 'invalid_request',
      param: 'Idempotency-Key',
    });
    expect(await runsOf(org.key)).toEqual([]);
  });
});
