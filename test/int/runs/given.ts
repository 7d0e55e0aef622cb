import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createApiKey, createOrg, grantCredit } from '../../../api/admin/commands.ts';
import type { ApiDeps } from '../../../api/app.ts';
import { hashApiKey } from '../../../api/auth/api-keys.ts';
import type { SandboxRuntime } from '../../../sandbox-runtime/runtime.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { givenRuntime } from '../sandboxes-runtime/given.ts';

// The run API of one test file: the platform in-process against the real stack, over a runtime
// of real sandboxes in a state folder of its own (sandboxes-runtime/given.ts), and the file's own
// orgs (recovery only touches those: the database is shared). The first org has credit.

export { prepareTimeoutMs } from '../sandboxes-runtime/given.ts';

export interface RunApi {
  platform: TestPlatform;
  runtime: SandboxRuntime;
  orgId: string;
  key: string;
  keyId: string;
  newOrg(name: string, creditCents?: number): Promise<{ orgId: string; key: string; keyId: string }>;
  call(
    method: 'GET' | 'POST',
    url: string,
    options?: { body?: unknown; bearer?: string },
  ): Promise<LightMyRequestResponse>;
  /** Places a run and expects 201; answers the run as placed. */
  place(body: Record<string, unknown>, bearer?: string): Promise<RunAnswer>;
  /** Polls `GET /api/runs/:id` until the run has ended (or the deadline). */
  ended(id: string, timeoutMs?: number): Promise<RunAnswer>;
  cleanup(): Promise<void>;
}

/** The run object as the API answers it (api/runs/answers.ts). */
export type RunAnswer = Record<string, unknown> & { id: string; name: string; status: string };

const active = new Set(['placed', 'running']);

export async function givenRunApi(
  runs: ApiDeps['runs'] = {},
  /** Called before the API is ready, as startTestPlatform's own (hooks of the test's). */
  beforeReady?: (api: FastifyInstance) => void,
): Promise<RunApi> {
  const given = givenRuntime();
  const { runtime } = given;
  await runtime.prepare();
  const orgIds: string[] = [];
  const platform = await startTestPlatform({
    sandboxes: { runtime, orgIds: () => orgIds },
    runs: { orgIds: () => orgIds, ...runs },
    beforeReady,
  });
  async function newOrg(name: string, creditCents = 1000) {
    const org = await createOrg(platform.admin, name);
    orgIds.push(org.orgId);
    const { key, keyId } = await createApiKey(platform.admin, org.orgId, ['sandboxes:write']);
    if (creditCents > 0) await grantCredit(platform.admin, org.orgId, creditCents, 'runs tests');
    await eventually(
      async () =>
        platform.directory.principal(hashApiKey(key)) &&
        (creditCents === 0 || platform.directory.hasCredit(org.orgId))
          ? true
          : undefined,
      10_000,
      'the key and its credit',
    );
    return { orgId: org.orgId, key, keyId };
  }
  const first = await newOrg('Runs');
  const call: RunApi['call'] = (method, url, options = {}) =>
    platform.api.inject({
      method,
      url,
      headers: { authorization: `Bearer ${options.bearer ?? first.key}` },
      ...(options.body === undefined ? {} : { payload: options.body as Record<string, unknown> }),
    });
  return {
    platform,
    runtime,
    ...first,
    newOrg,
    call,
    async place(body, bearer) {
      const answer = await call('POST', '/api/runs', { body, bearer });
      if (answer.statusCode !== 201) throw new Error(`placing answered ${answer.statusCode}: ${answer.body}`);
      return answer.json().data as RunAnswer;
    },
    ended: (id, timeoutMs = 60_000) =>
      eventually(
        async () => {
          const run = (await call('GET', `/api/runs/${id}`)).json().data as RunAnswer;
          return active.has(run.status) ? undefined : run;
        },
        timeoutMs,
        `run ${id} to end`,
      ),
    async cleanup() {
      await platform.stop();
      await given.cleanup();
    },
  };
}

/** The NDJSON lines of an answer. */
export function ndjson(body: string): Record<string, unknown>[] {
  return body
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export const base64 = (text: string) => Buffer.from(text).toString('base64');
