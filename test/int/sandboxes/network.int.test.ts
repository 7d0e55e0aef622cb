import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { networkRuleLimit } from '../../../domain/sandboxes/network.ts';
import { givenSandboxApi, prepareTimeoutMs, type SandboxApi } from './given.ts';

// A sandbox's network policy through the API (issue 48): what a create, an update and a fork
// record, what the sandbox object then says, and what the host's runtime was given (its
// `status(id).network`). What a policy lets through is the runtime's to show
// (test/int/sandboxes-runtime/network.int.test.ts, against a fake internet); here only that the
// policy reaches it, and the refusals of a bad one.

let api: SandboxApi;
beforeAll(async () => {
  api = await givenSandboxApi();
}, prepareTimeoutMs);
afterAll(() => api.cleanup());

const open = { egress: 'open', allow: [], deny: [] };
const none = { egress: 'none', allow: [], deny: [] };

const create = async (body: Record<string, unknown> = {}) => {
  const answer = await api.call('POST', '/api/sandboxes', { body });
  expect(answer.statusCode, answer.body).toBe(201);
  return answer.json().data;
};
const patch = async (id: string, body: Record<string, unknown>) => {
  const answer = await api.call('PATCH', `/api/sandboxes/${id}`, { body });
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.json().data;
};
const read = async (id: string) => (await api.call('GET', `/api/sandboxes/${id}`)).json().data;
const runtimeNetwork = async (id: string) => (await api.runtime.status(id)).network;

describe('create', () => {
  it('is open by default, and the runtime has it so', async () => {
    const sandbox = await create();
    expect(sandbox.network).toEqual(open);
    expect(await runtimeNetwork(sandbox.id)).toEqual(open);
  });

  it('with egress none: the object says so, a GET too, and the runtime was made with it', async () => {
    const sandbox = await create({ network: { egress: 'none' } });
    expect(sandbox).toMatchObject({ status: 'running', network: none });
    expect((await read(sandbox.id)).network).toEqual(none);
    expect(await runtimeNetwork(sandbox.id)).toEqual(none);
  });

  it('keeps rules in their canonical form: the network of a CIDR, names in lower case', async () => {
    const sandbox = await create({
      network: { allow: ['Docs.Example.COM.', '203.0.113.9/24', '2001:DB8::1/32'], deny: ['198.51.100.7'] },
    });
    const canonical = {
      egress: 'open',
      allow: ['docs.example.com', '203.0.113.0/24', '2001:db8::/32'],
      deny: ['198.51.100.7/32'],
    };
    expect(sandbox.network).toEqual(canonical);
    expect(await runtimeNetwork(sandbox.id)).toEqual(canonical);
  });
});

describe('update', () => {
  it('to open with a deny list: the object says so and the runtime has it at once, processes kept', async () => {
    const sandbox = await create({ network: { egress: 'none' } });
    await api.call('POST', `/api/sandboxes/${sandbox.id}/exec`, {
      body: { command: 'nohup sleep 600 >/dev/null 2>&1 &' },
    });
    const policy = { egress: 'open', allow: [], deny: ['example.com', '198.51.100.0/24'] };
    const updated = await patch(sandbox.id, { network: { egress: 'open', deny: policy.deny } });
    expect(updated).toMatchObject({ status: 'running', network: policy, metadata: {} });
    expect((await read(sandbox.id)).network).toEqual(policy);
    expect(await runtimeNetwork(sandbox.id)).toEqual(policy);
    const still = await api.call('POST', `/api/sandboxes/${sandbox.id}/exec`, {
      body: { command: 'pgrep -x sleep >/dev/null && echo kept' },
    });
    expect(still.json().data.stdout).toBe('kept\n');
  });

  it('replaces the whole policy; an update without `network` leaves it', async () => {
    const sandbox = await create({ network: { allow: ['pypi.org'], deny: ['203.0.113.0/24'] } });
    const relabelled = await patch(sandbox.id, { metadata: { team: 'web' } });
    expect(relabelled.network).toEqual({ egress: 'open', allow: ['pypi.org'], deny: ['203.0.113.0/24'] });
    const replaced = await patch(sandbox.id, { network: { deny: ['example.org'] } });
    expect(replaced.network).toEqual({ egress: 'open', allow: [], deny: ['example.org'] });
    expect(await runtimeNetwork(sandbox.id)).toEqual(replaced.network);
  });

  it('works on a stopped sandbox, which resumes with it', async () => {
    const sandbox = await create();
    expect((await api.call('POST', `/api/sandboxes/${sandbox.id}/stop`)).json().data.status).toBe('stopped');
    const updated = await patch(sandbox.id, { network: { egress: 'none' } });
    expect(updated).toMatchObject({ status: 'stopped', network: none });
    expect(await runtimeNetwork(sandbox.id)).toEqual(none);
    const resumed = (await api.call('POST', `/api/sandboxes/${sandbox.id}/resume`)).json().data;
    expect(resumed).toMatchObject({ status: 'running', network: none });
    expect(await runtimeNetwork(sandbox.id)).toEqual(none);
  });
});

describe('fork', () => {
  it("keeps its source's policy, as the source has it after an update; the source is unchanged", async () => {
    const source = await create({ network: { egress: 'none' } });
    const policy = { egress: 'open', allow: ['pypi.org', '151.101.0.0/16'], deny: [] };
    await patch(source.id, { network: { allow: policy.allow } });
    const forked = await api.call('POST', `/api/sandboxes/${source.id}/fork`, { body: {} });
    expect(forked.statusCode, forked.body).toBe(201);
    const copy = forked.json().data;
    expect(copy).toMatchObject({ forked_from: source.id, status: 'running', network: policy });
    expect((await read(copy.id)).network).toEqual(policy);
    expect(await runtimeNetwork(copy.id)).toEqual(policy);
    expect((await read(source.id)).network).toEqual(policy);
  });
});

describe('refusals: 422 invalid_request naming the field, nothing created or changed', () => {
  const many = Array.from({ length: networkRuleLimit + 1 }, (_, i) => `203.0.113.${i}`);
  const cases: [string, unknown, string, RegExp][] = [
    [
      'a 4th rule that is neither a CIDR nor a host name',
      { allow: ['example.com', '203.0.113.0/24', 'docs.example.org', 'not a rule'] },
      'network.allow[3]',
      /send a CIDR/,
    ],
    ['101 rules', { deny: many }, 'network.deny', /at most 100/],
    ['101 allowed', { allow: many }, 'network.allow', /at most 100/],
    ['allow with egress none', { egress: 'none', allow: ['example.com'] }, 'network.allow', /egress 'none'/],
    ['an allow entry never reachable', { allow: ['169.254.169.254'] }, 'network.allow[0]', /never reachable/],
    ['an egress that is not one', { egress: 'closed' }, 'network.egress', /./],
    ['a field that is not one', { rules: [] }, 'network.rules', /./],
  ];

  it.each(cases)('create: %s', async (_what, network, param, message) => {
    const name = `refused-${Date.now().toString(36)}`;
    const answer = await api.call('POST', '/api/sandboxes', { body: { name, network } });
    expect(answer.statusCode, answer.body).toBe(422);
    expect(answer.json().error).toMatchObject({ code: 'invalid_request', param, message });
    expect((await api.call('GET', `/api/sandboxes/${name}`)).statusCode).toBe(404);
  });

  it.each(cases)('update: %s', async (_what, network, param, message) => {
    const sandbox = await create({ network: { egress: 'none' } });
    const answer = await api.call('PATCH', `/api/sandboxes/${sandbox.id}`, { body: { network } });
    expect(answer.statusCode, answer.body).toBe(422);
    expect(answer.json().error).toMatchObject({ code: 'invalid_request', param, message });
    expect((await read(sandbox.id)).network).toEqual(none);
    expect(await runtimeNetwork(sandbox.id)).toEqual(none);
  });
});
