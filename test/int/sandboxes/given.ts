import type { LightMyRequestResponse } from 'fastify';
import { createApiKey, createOrg } from '../../../api/admin/commands.ts';
import type { ApiDeps } from '../../../api/app.ts';
import { hashApiKey } from '../../../api/auth/api-keys.ts';
import type { Scope } from '../../../domain/orgs/events.ts';
import type { SandboxRuntime } from '../../../sandbox-runtime/runtime.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { givenRuntime } from '../sandboxes-runtime/given.ts';

// The sandbox API of one test file: the platform in-process against the real stack, over the
// runtime of sandboxes-runtime/given.ts (real sandboxes in a state folder of its own), with a
// clock the test can move, and the file's own orgs (the idle-timeout job and recovery only touch
// those: the database is shared).

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
 * `sandboxes` adds to the file's runtime, clock and orgs; a function gets the runtime (for a
 * desktop). `httpTimeouts` replaces ORRERY_HTTP_*'s.
 */
export async function givenSandboxApi(
  sandboxes: ApiDeps['sandboxes'] | ((runtime: SandboxRuntime) => ApiDeps['sandboxes']) = {},
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
  const orgIds: string[] = [];
  // The idle job asks for the file's orgs once as each pass begins (api/sandboxes/idle.ts), and
  // a pass begins only once the one before has ended: the second ask after a moment ends a pass
  // that began after it.
  let asked = 0;
  const waiting: { until: number; resolve: () => void }[] = [];
  const platform = await startTestPlatform({
    sandboxes: {
      runtime,
      now: clock.now,
      orgIds: () => {
        asked += 1;
        for (const waiter of waiting.filter((w) => w.until <= asked)) {
          waiting.splice(waiting.indexOf(waiter), 1);
          waiter.resolve();
        }
        return orgIds;
      },
      ...(typeof sandboxes === 'function' ? sandboxes(runtime) : sandboxes),
    },
    httpTimeouts: options.httpTimeouts,
    models: options.models,
    dashboardRoot: options.dashboardRoot,
  });
  async function newOrg(name: string, scopes: Scope[] = ['sandboxes:write']) {
    const org = await createOrg(platform.admin, name);
    orgIds.push(org.orgId);
    const { key, keyId } = await createApiKey(platform.admin, org.orgId, scopes);
    await eventually(async () => platform.directory.principal(hashApiKey(key)), 5_000, 'the key');
    return { orgId: org.orgId, key, keyId };
  }
  const first = await newOrg('Sandboxes');
  return {
    platform,
    runtime,
    dir,
    clock,
    afterIdlePass: () => new Promise<void>((resolve) => waiting.push({ until: asked + 2, resolve })),
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
      await platform.stop();
      await given.cleanup();
    },
  };
}
