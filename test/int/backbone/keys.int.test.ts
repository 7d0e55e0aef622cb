import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createOrg, revokeApiKey } from '../../../api/admin/commands.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({
    // A route needing a scope, to exercise the shared hook's 403 before every surface has one.
    beforeReady: (api) =>
      api.register(async (scoped) => {
        scoped.get(
          '/api/test/needs-inference',
          { onRequest: scoped.requireKey('inference:invoke') },
          async () => ({
            ok: true,
          }),
        );
      }),
  });
});
afterAll(() => platform.stop());

const me = (key?: string) =>
  platform.api.inject({
    method: 'GET',
    url: '/api/me',
    headers: key ? { authorization: `Bearer ${key}` } : {},
  });

describe('API key lifecycle through the shared auth hook', () => {
  it('a new key works, a revoked key gets 401 within a second, a key without the scope gets 403', async () => {
    const org = await createOrg(platform.admin, 'Key Lifecycle');
    const { key, keyId } = await createApiKey(platform.admin, org.orgId, ['traces:write']);
    const known = await eventually(
      async () => ((await me(key)).statusCode === 200 ? true : undefined),
      5_000,
      'key',
    );
    expect(known).toBe(true);
    const answer = (await me(key)).json();
    expect(answer.data.org).toEqual({ id: org.orgId, name: 'Key Lifecycle', tracing_enabled: false });
    expect(answer.data.key).toEqual({ id: keyId, name: 'default', scopes: ['traces:write'] });
    expect(answer.data.person).toBeNull();

    const scoped = await platform.api.inject({
      method: 'GET',
      url: '/api/test/needs-inference',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(scoped.statusCode).toBe(403);
    expect(scoped.json().error.code).toBe('insufficient_scope');
    expect(scoped.json().error.message).toMatch(/inference:invoke/);

    const revokedAt = Date.now();
    const revoking = revokeApiKey(platform.admin, org.orgId, keyId);
    await eventually(async () => ((await me(key)).statusCode === 401 ? true : undefined), 5_000, '401');
    const elapsed = Date.now() - revokedAt;
    await revoking;
    expect(elapsed).toBeLessThan(1000);
    const refused = await me(key);
    expect(refused.json().error.code).toBe('unauthorized');
  });

  it('answers 401 unauthorized with no key and with an unknown key', async () => {
    for (const response of [await me(), await me('orr_not-a-real-key')]) {
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({
        error: { code: 'unauthorized', message: expect.stringMatching(/Authorization: Bearer/) },
      });
    }
  });
});
