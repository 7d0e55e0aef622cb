import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createApiKey, createOrg, grantCredit } from '../../../api/admin/commands.ts';
import { hashApiKey } from '../../../api/auth/api-keys.ts';
import type { SandboxRuntime } from '../../../sandbox-runtime/runtime.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { freePort } from '../../harness/ports.ts';
import { startTestHost, type TestHost, type TestHostOptions, testFleet } from '../../harness/sandbox-host.ts';
import { givenRuntime } from '../sandboxes-runtime/given.ts';

// The run API of one test file: the platform in-process against the real stack, listening on a
// port of its own, and a sandbox host (test/harness/sandbox-host.ts) over a runtime of real
// sandboxes in a state folder of its own (sandboxes-runtime/given.ts), which carries the runs out,
// and the file's own orgs. The first org has credit. Recovery only touches the host's own runs.

export { prepareTimeoutMs } from '../sandboxes-runtime/given.ts';

export interface RunApi {
  platform: TestPlatform;
  /** Where the API listens (http://127.0.0.1:<port>). */
  baseUrl: string;
  host: TestHost;
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

/** `host` chooses of the file's sandbox host (its metering, its resources). */
export async function givenRunApi(
  host: TestHostOptions = {},
  /** Called before the API is ready, as startTestPlatform's own (hooks of the test's). */
  beforeReady?: (api: FastifyInstance) => void,
): Promise<RunApi> {
  const given = givenRuntime();
  const { runtime } = given;
  await runtime.prepare();
  const fleet = testFleet();
  const platform = await startTestPlatform({ sandboxes: { fleet }, beforeReady });
  const baseUrl = await platform.api.listen({ host: '127.0.0.1', port: await freePort() });
  const testHost = await startTestHost({ ...platform, apiUrl: baseUrl, fleet }, runtime, host);
  async function newOrg(name: string, creditCents = 1000) {
    const org = await createOrg(platform.admin, name);
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
    baseUrl,
    host: testHost,
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
      await testHost.stop();
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
