import type { LightMyRequestResponse } from 'fastify';
import { createApiKey, createOrg } from '../../../api/admin/commands.ts';
import type { ApiDeps } from '../../../api/app.ts';
import { hashApiKey } from '../../../api/auth/api-keys.ts';
import type { Scope } from '../../../domain/orgs/events.ts';
import type { SandboxRuntime } from '../../../sandbox-runtime/runtime.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { freePort } from '../../harness/ports.ts';
import { startTestHost, type TestHost, type TestHostOptions, testFleet } from '../../harness/sandbox-host.ts';
import { givenRuntime } from '../sandboxes-runtime/given.ts';

// The sandbox API of one test file: the platform in-process against the real stack, listening on
// a port of its own, and a sandbox host (test/harness/sandbox-host.ts) over the runtime of
// sandboxes-runtime/given.ts (real sandboxes in a state folder of its own), with a clock the test
// can move, and the file's own orgs. The API places only on the file's host, and the host's
// idle-timeout job and recovery only touch the sandboxes it holds: the database is shared.

export { prepareTimeoutMs } from '../sandboxes-runtime/given.ts';

export interface TestClock {
  now: () => Date;
  advance(seconds: number): void;
}

export function testClock(): TestClock {
  let offsetMs = 0;
  return {
    now: () => new Date(Date.now() + offsetMs),
    advance: (seconds) => {
      offsetMs += seconds * 1000;
    },
  };
}

export interface SandboxApi {
  platform: TestPlatform;
  /** The file's own fleet of sandbox hosts. */
  fleet: string;
  /** Where the API listens (http://127.0.0.1:<port>). */
  baseUrl: string;
  /** The file's sandbox host. */
  host: TestHost;
  runtime: SandboxRuntime;
  /** The runtime's state folder. */
  dir: string;
  clock: TestClock;
  /**
   * Resolves once the idle-timeout job (`idleCheckMs`) has run a whole pass begun after this call,
   * so on the clock as it is now: a sandbox that pass would stop shows as stopped by then.
   */
  afterIdlePass(): Promise<void>;
  /** The file's first org and its key with `sandboxes:write`. */
  orgId: string;
  key: string;
  keyId: string;
  newOrg(name: string, scopes?: Scope[]): Promise<{ orgId: string; key: string; keyId: string }>;
  call(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    options?: { body?: unknown; bearer?: string | null; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>;
  cleanup(): Promise<void>;
}

/**
 * `sandboxes` adds to the file's host (its clock and idle job are the file's); a function gets the
 * runtime (for a desktop). `httpTimeouts` replaces ORRERY_HTTP_*'s.
 */
export async function givenSandboxApi(
  sandboxes: TestHostOptions | ((runtime: SandboxRuntime) => TestHostOptions) = {},
  options: {
    httpTimeouts?: ApiDeps['httpTimeouts'];
    models?: ApiDeps['models'];
    /** The dashboard's built files, for a test that drives it in a browser. */
    dashboardRoot?: ApiDeps['dashboardRoot'];
  } = {},
): Promise<SandboxApi> {
  const given = givenRuntime();
  const { runtime, dir } = given;
  await runtime.prepare();
  const clock = testClock();
  // The host's idle job tells each pass as it begins (sandbox-host/idle.ts), and a pass begins
  // only once the one before has ended: the second pass begun after a moment ends a pass that
  // began after it.
  let passes = 0;
  const waiting: { until: number; resolve: () => void }[] = [];
  const onIdlePass = () => {
    passes += 1;
    for (const waiter of waiting.filter((w) => w.until <= passes)) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const fleet = testFleet();
  const platform = await startTestPlatform({
    sandboxes: { now: clock.now, fleet },
    httpTimeouts: options.httpTimeouts,
    models: options.models,
    dashboardRoot: options.dashboardRoot,
  });
  const baseUrl = await platform.api.listen({ host: '127.0.0.1', port: await freePort() });
  const host = await startTestHost({ ...platform, apiUrl: baseUrl, fleet }, runtime, {
    now: clock.now,
    onIdlePass,
    ...(typeof sandboxes === 'function' ? sandboxes(runtime) : sandboxes),
  });
  async function newOrg(name: string, scopes: Scope[] = ['sandboxes:write']) {
    const org = await createOrg(platform.admin, name);
    const { key, keyId } = await createApiKey(platform.admin, org.orgId, scopes);
    await eventually(async () => platform.directory.principal(hashApiKey(key)), 5_000, 'the key');
    return { orgId: org.orgId, key, keyId };
  }
  const first = await newOrg('Sandboxes');
  const sandboxApi: SandboxApi = {
    platform,
    fleet,
    baseUrl,
    host,
    runtime,
    dir,
    clock,
    afterIdlePass: () => new Promise<void>((resolve) => waiting.push({ until: passes + 2, resolve })),
    ...first,
    newOrg,
    call: (method, url, options = {}) => {
      const bearer = options.bearer === undefined ? first.key : options.bearer;
      const headers: Record<string, string> = { ...options.headers };
      if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
      const body = options.body;
      if (Buffer.isBuffer(body)) {
        headers['content-type'] ??= 'application/octet-stream';
        return platform.api.inject({ method, url, headers, payload: body });
      }
      return platform.api.inject({
        method,
        url,
        headers,
        ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
      });
    },
    async cleanup() {
      await sandboxApi.host.stop();
      await platform.stop();
      await given.cleanup();
    },
  };
  return sandboxApi;
}
