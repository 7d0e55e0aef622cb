import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64, givenRunApi, prepareTimeoutMs, type RunApi } from './given.ts';

// What the API refuses before anything is placed or charged (issue 16: bad input), each a 4xx
// naming its `param` in the sandbox surface's error shape; and the catalog, and who may call.

let api: RunApi;
beforeAll(async () => {
  // A host with two cores and 24 GiB, as ours: `large` and `xl` are not sold here.
  api = await givenRunApi({ resources: { cores: 2, memoryMiB: 24 * 1024, memoryOvercommit: 2 } });
}, prepareTimeoutMs);
afterAll(() => api.cleanup());

const command = 'echo never';

describe('refused before anything is placed or charged', () => {
  it.each<[string, Record<string, unknown>, number, string, string]>([
    ['an unknown size', { command, ceiling_cents: 1, size: 'huge' }, 422, 'invalid_request', 'size'],
    [
      'a ceiling below one second of the size',
      { command, ceiling_cents: 0.001 },
      422,
      'invalid_request',
      'ceiling_cents',
    ],
    [
      'a ceiling below one second of a larger size',
      { command, ceiling_cents: 0.0039, size: 'standard' },
      422,
      'invalid_request',
      'ceiling_cents',
    ],
    ['no ceiling', { command }, 422, 'invalid_request', 'ceiling_cents'],
    [
      'a ceiling finer than a micro-dollar',
      { command, ceiling_cents: 0.00001 },
      422,
      'invalid_request',
      'ceiling_cents',
    ],
    [
      'a working file without its contents',
      { command, ceiling_cents: 1, files: [{ path: 'train.py' }] },
      422,
      'invalid_request',
      'files[0].contents_base64',
    ],
    [
      'a working file that is not base64',
      { command, ceiling_cents: 1, files: [{ path: 'a', contents_base64: 'no!' }] },
      422,
      'invalid_request',
      'files[0].contents_base64',
    ],
    [
      'a working file outside the working directory',
      { command, ceiling_cents: 1, files: [{ path: '../etc/passwd', contents_base64: base64('x') }] },
      422,
      'invalid_request',
      'files[0].path',
    ],
    [
      'a working file named twice',
      {
        command,
        ceiling_cents: 1,
        files: [
          { path: 'a', contents_base64: '' },
          { path: 'a', contents_base64: '' },
        ],
      },
      422,
      'invalid_request',
      'files[1].path',
    ],
    [
      'a platform variable',
      { command, ceiling_cents: 1, env: { ORRERY_RESULT_PATH: '/tmp/x' } },
      422,
      'invalid_request',
      'env.ORRERY_RESULT_PATH',
    ],
    ['no command', { ceiling_cents: 1 }, 422, 'invalid_request', 'command'],
    ['an empty command array', { command: [], ceiling_cents: 1 }, 422, 'invalid_request', 'command'],
    [
      'a command array holding a number',
      { command: ['echo', 1], ceiling_cents: 1 },
      422,
      'invalid_request',
      'command[1]',
    ],
    [
      'a command array holding null',
      { command: ['echo', 'a', null], ceiling_cents: 1 },
      422,
      'invalid_request',
      'command[2]',
    ],
    [
      'a command array whose program is empty',
      { command: ['', 'x'], ceiling_cents: 1 },
      422,
      'invalid_request',
      'command[0]',
    ],
    [
      'a command that is neither a string nor an array',
      { command: { argv: ['ls'] }, ceiling_cents: 1 },
      422,
      'invalid_request',
      'command',
    ],
    ['an empty command string', { command: '', ceiling_cents: 1 }, 422, 'invalid_request', 'command'],
    ['an unknown field', { command, ceiling_cents: 1, timeout: 5 }, 422, 'invalid_request', 'timeout'],
    [
      'a network rule that is neither a CIDR nor a host name',
      { command, ceiling_cents: 1, network: { deny: ['example.com', '203.0.113.0/24', 'x.y', 'no rule'] } },
      422,
      'invalid_request',
      'network.deny[3]',
    ],
    [
      'an allow list with egress none',
      { command, ceiling_cents: 1, network: { egress: 'none', allow: ['pypi.org'] } },
      422,
      'invalid_request',
      'network.allow',
    ],
    [
      'a template that is neither an id nor a name',
      { command, ceiling_cents: 1, template: 'Not_A_Template' },
      422,
      'invalid_request',
      'template',
    ],
    [
      'a template the org does not have',
      { command, ceiling_cents: 1, template: 'no-such-template' },
      404,
      'not_found',
      'template',
    ],
    [
      'a size this host cannot hold',
      { command, ceiling_cents: 1, size: 'xl' },
      409,
      'size_unavailable',
      'size',
    ],
  ])('%s', async (_, body, status, code, param) => {
    const answer = await api.call('POST', '/api/runs', { body });
    expect(answer.statusCode, answer.body).toBe(status);
    expect(answer.json().error).toMatchObject({ code, param });
    expect(answer.json().error.message).toEqual(expect.any(String));
  });

  it('an org with no credit: 402 naming the ceiling, nothing placed, nothing charged', async () => {
    const broke = await api.newOrg('No credit', 0);
    const answer = await api.call('POST', '/api/runs', {
      body: { command, ceiling_cents: 1 },
      bearer: broke.key,
    });
    expect(answer.statusCode, answer.body).toBe(402);
    expect(answer.json().error).toMatchObject({ code: 'insufficient_credit', param: 'ceiling_cents' });
    expect((await api.call('GET', '/api/runs', { bearer: broke.key })).json()).toEqual({ data: [] });
    expect(
      (await api.call('GET', '/api/billing/summary', { bearer: broke.key })).json().data.charges,
    ).toEqual([]);
  });

  it('placed nothing for any refusal above', async () => {
    expect((await api.call('GET', '/api/runs')).json()).toEqual({ data: [] });
    expect((await api.runtime.list()).length).toBe(0);
  });
});

describe('the catalog', () => {
  it('lists each size with its cores, memory, disk, prices and availability', async () => {
    const answer = await api.call('GET', '/api/catalog');
    expect(answer.statusCode).toBe(200);
    expect(answer.json().data).toEqual([
      {
        size: 'small',
        cpus: 1,
        memory_mib: 2048,
        disk_mib: 8192,
        disk_mbps: 50,
        price_per_second_cents: 0.002,
        price_per_hour_cents: 7.2,
        minimum_ceiling_cents: 0.002,
        available: true,
      },
      {
        size: 'standard',
        cpus: 2,
        memory_mib: 4096,
        disk_mib: 16384,
        disk_mbps: 100,
        price_per_second_cents: 0.004,
        price_per_hour_cents: 14.4,
        minimum_ceiling_cents: 0.004,
        available: true,
      },
      {
        size: 'large',
        cpus: 4,
        memory_mib: 8192,
        disk_mib: 32768,
        disk_mbps: 150,
        price_per_second_cents: 0.008,
        price_per_hour_cents: 28.8,
        minimum_ceiling_cents: 0.008,
        available: false,
      },
      {
        size: 'xl',
        cpus: 8,
        memory_mib: 16384,
        disk_mib: 65536,
        disk_mbps: 200,
        price_per_second_cents: 0.016,
        price_per_hour_cents: 57.6,
        minimum_ceiling_cents: 0.016,
        available: false,
      },
    ]);
  });
});

describe('who may call', () => {
  it('refuses a key without `sandboxes:write` (403) and no key (401)', async () => {
    const other = await api.newOrg('Traces only', 0);
    const { createApiKey } = await import('../../../api/admin/commands.ts');
    const { key } = await createApiKey(api.platform.admin, other.orgId, ['traces:write']);
    const { eventually } = await import('../../harness/platform.ts');
    const { hashApiKey } = await import('../../../api/auth/api-keys.ts');
    await eventually(async () => api.platform.directory.principal(hashApiKey(key)), 5_000);
    const refused = await api.call('POST', '/api/runs', { body: { command, ceiling_cents: 1 }, bearer: key });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('insufficient_scope');
    expect((await api.call('GET', '/api/runs', { bearer: 'nope' })).statusCode).toBe(401);
  });

  it('`GET /api/me` names the key, its org and its person', async () => {
    const me = (await api.call('GET', '/api/me')).json().data;
    expect(me).toMatchObject({ org: { id: api.orgId }, key: { id: api.keyId, scopes: ['sandboxes:write'] } });
    expect(me).toHaveProperty('person');
  });
});
