import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../harness/platform.ts';
import { givenSandboxApi, prepareTimeoutMs, type SandboxApi } from './given.ts';

// Templates through the API (issue 48): built from a recipe on the file's host in the background
// (a real Debian package from the host's mirror, reached through the build sandbox's own network),
// taken from a sandbox's files, sandboxes made from them, their refusals, and their deletion.
// What a template's layers are is the runtime's to show (test/int/sandboxes-runtime/templates).

let api: SandboxApi;
beforeAll(async () => {
  api = await givenSandboxApi();
}, prepareTimeoutMs);
afterAll(() => api.cleanup());

const unique = (label: string) => `${label}-${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;

const buildTimeoutMs = 600_000;

async function build(name: string, recipe: Record<string, unknown>) {
  const answer = await api.call('POST', '/api/templates', { body: { name, recipe } });
  expect(answer.statusCode, answer.body).toBe(202);
  return answer.json().data;
}

/** Polls GET until the template is no longer building. */
function built(idOrName: string) {
  return eventually(
    async () => {
      const template = (await api.call('GET', `/api/templates/${idOrName}`)).json().data;
      return template.status === 'building' ? undefined : template;
    },
    buildTimeoutMs,
    `template ${idOrName} built`,
  );
}

async function create(body: Record<string, unknown> = {}) {
  const answer = await api.call('POST', '/api/sandboxes', { body });
  expect(answer.statusCode, answer.body).toBe(201);
  return answer.json().data;
}

const exec = async (id: string, command: string) =>
  (await api.call('POST', `/api/sandboxes/${id}/exec`, { body: { command } })).json().data;

describe('a template from a recipe', () => {
  const name = unique('jq-tools');
  let templateId: string;

  it(
    'is answered 202 building, on the host, then ready through GET',
    async () => {
      const recipe = { packages: ['jq'], run: ['echo built > /etc/orrery-template'] };
      const building = await build(name, recipe);
      expect(building).toMatchObject({
        name,
        status: 'building',
        source: { kind: 'recipe', ...recipe },
        parent: null,
        host: api.host.hostId,
        failure: null,
      });
      expect(building.id).toMatch(/^tpl_[0-9a-f]{24}$/);
      templateId = building.id;
      const ready = await built(templateId);
      expect(ready).toMatchObject({ id: templateId, status: 'ready', failure: null });
    },
    buildTimeoutMs,
  );

  it('makes sandboxes that have the package, by name; the sandbox object and its fork say so', async () => {
    const sandbox = await create({ template: name });
    expect(sandbox).toMatchObject({ status: 'running', template: templateId, host: api.host.hostId });
    expect(await exec(sandbox.id, 'jq --version && cat /etc/orrery-template')).toMatchObject({
      exit_code: 0,
      stdout: expect.stringMatching(/^jq-1\.\d.*\nbuilt\n$/s),
    });
    expect((await api.call('GET', `/api/sandboxes/${sandbox.id}`)).json().data.template).toBe(templateId);
    const plain = await create();
    expect(plain.template).toBeNull();
    expect((await exec(plain.id, 'command -v jq')).exit_code).not.toBe(0);
    const forked = await api.call('POST', `/api/sandboxes/${sandbox.id}/fork`, { body: {} });
    expect(forked.statusCode, forked.body).toBe(201);
    expect(forked.json().data.template).toBe(templateId);
    expect((await exec(forked.json().data.id, 'jq --version')).exit_code).toBe(0);
    for (const id of [sandbox.id, plain.id, forked.json().data.id])
      await api.call('DELETE', `/api/sandboxes/${id}`);
  });

  it('refuses its name again while it stands (422 on `name`)', async () => {
    const answer = await api.call('POST', '/api/templates', {
      body: { name, recipe: { packages: [], run: ['true'] } },
    });
    expect(answer.statusCode, answer.body).toBe(422);
    expect(answer.json().error).toMatchObject({ code: 'invalid_request', param: 'name' });
  });
});

describe('a recipe that fails', () => {
  it(
    'leaves the template failed with the tail of its log; creating from it is 409 naming it',
    async () => {
      const name = unique('broken');
      await build(name, { packages: ['no-such-package-orrery'] });
      const failed = await built(name);
      expect(failed.status).toBe('failed');
      expect(failed.failure).toContain('Unable to locate package no-such-package-orrery');
      const answer = await api.call('POST', '/api/sandboxes', { body: { template: name } });
      expect(answer.statusCode, answer.body).toBe(409);
      expect(answer.json().error).toMatchObject({ code: 'template_not_ready', param: 'template' });
      expect(answer.json().error.message).toContain(`\`${name}\` (${failed.id})`);
      expect(answer.json().error.message).toContain('failed');
    },
    buildTimeoutMs,
  );
});

describe('a template still building', () => {
  it(
    'refuses sandboxes with 409 naming it, before anything is made; then makes them once ready',
    async () => {
      const name = unique('slow');
      const building = await build(name, { run: ['sleep 4', 'echo slow > /etc/slow'] });
      const before = (await api.call('GET', '/api/sandboxes')).json().data.length;
      const answer = await api.call('POST', '/api/sandboxes', { body: { template: building.id } });
      expect(answer.statusCode, answer.body).toBe(409);
      expect(answer.json().error).toMatchObject({ code: 'template_not_ready', param: 'template' });
      expect(answer.json().error.message).toContain(`\`${name}\` (${building.id}) is still building`);
      expect((await api.call('GET', '/api/sandboxes')).json().data.length).toBe(before);
      // Nor can it be deleted while its host writes its files.
      const deleting = await api.call('DELETE', `/api/templates/${name}`);
      expect(deleting.statusCode, deleting.body).toBe(409);
      expect(deleting.json().error.code).toBe('template_not_ready');

      expect((await built(name)).status).toBe('ready');
      const sandbox = await create({ template: name });
      expect((await exec(sandbox.id, 'cat /etc/slow')).stdout).toBe('slow\n');
      await api.call('DELETE', `/api/sandboxes/${sandbox.id}`);
    },
    buildTimeoutMs,
  );
});

describe('a template from a sandbox', () => {
  it("has the sandbox's files as they were, is ready at once, and cannot be deleted while in use", async () => {
    const source = await create();
    await exec(source.id, 'mkdir -p /srv/app && echo v1 > /srv/app/version');
    const name = unique('app');
    const answer = await api.call('POST', `/api/sandboxes/${source.name}/snapshot`, { body: { name } });
    expect(answer.statusCode, answer.body).toBe(201);
    const template = answer.json().data;
    expect(template).toMatchObject({
      name,
      status: 'ready',
      source: { kind: 'snapshot', sandbox: source.id },
      parent: null,
      host: api.host.hostId,
    });
    await exec(source.id, 'echo v2 > /srv/app/version'); // after the snapshot: not in it

    const made = await create({ template: template.id });
    expect((await exec(made.id, 'cat /srv/app/version')).stdout).toBe('v1\n');

    // A snapshot of a sandbox made from a template stands on it.
    const child = await api.call('POST', `/api/sandboxes/${made.id}/snapshot`, {
      body: { name: `${name}-2` },
    });
    expect(child.statusCode, child.body).toBe(201);
    expect(child.json().data.parent).toBe(template.id);

    const inUse = await api.call('DELETE', `/api/templates/${name}`);
    expect(inUse.statusCode, inUse.body).toBe(409);
    expect(inUse.json().error.code).toBe('template_in_use');
    expect(inUse.json().error.message).toContain(made.id);
    expect(inUse.json().error.message).toContain(child.json().data.id);

    await api.call('DELETE', `/api/sandboxes/${made.id}`);
    expect((await api.call('DELETE', `/api/templates/${name}-2`)).statusCode).toBe(200);
    const deleted = await api.call('DELETE', `/api/templates/${name}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.json().data).toMatchObject({ id: template.id, status: 'deleted' });
    expect(api.runtime.template(template.id)).toBeUndefined();
    const listed = (await api.call('GET', '/api/templates')).json().data.map((t: { id: string }) => t.id);
    expect(listed).not.toContain(template.id);
    expect((await api.call('GET', `/api/templates/${name}`)).statusCode).toBe(404);
    // Deleting it again by id answers it as it is.
    expect((await api.call('DELETE', `/api/templates/${template.id}`)).json().data.status).toBe('deleted');
    await api.call('DELETE', `/api/sandboxes/${source.id}`);
  });

  it('refuses a stopped sandbox (409 not_running), and makes nothing', async () => {
    const sandbox = await create();
    await api.call('POST', `/api/sandboxes/${sandbox.id}/stop`);
    const name = unique('stopped');
    const answer = await api.call('POST', `/api/sandboxes/${sandbox.id}/snapshot`, { body: { name } });
    expect(answer.statusCode, answer.body).toBe(409);
    expect(answer.json().error.code).toBe('not_running');
    expect((await api.call('GET', `/api/templates/${name}`)).statusCode).toBe(404);
    await api.call('DELETE', `/api/sandboxes/${sandbox.id}`);
  });
});

describe('lists and lookups', () => {
  it('lists the org’s templates newest first, and another org sees none of them', async () => {
    const first = await api.call('POST', `/api/sandboxes`, { body: {} });
    const source = first.json().data;
    const names = [unique('older'), unique('newer')];
    for (const name of names)
      await api.call('POST', `/api/sandboxes/${source.id}/snapshot`, { body: { name } });
    const listed = (await api.call('GET', '/api/templates')).json().data.map((t: { name: string }) => t.name);
    expect(listed.indexOf(names[1])).toBeLessThan(listed.indexOf(names[0]));
    const other = await api.newOrg('Other templates');
    const theirs = await api.call('GET', '/api/templates', { bearer: other.key });
    expect(theirs.json().data).toEqual([]);
    const missing = await api.call('GET', `/api/templates/${names[0]}`, { bearer: other.key });
    expect(missing.statusCode).toBe(404);
    const notTheirs = await api.call('POST', '/api/sandboxes', {
      bearer: other.key,
      body: { template: names[0] },
    });
    expect(notTheirs.statusCode, notTheirs.body).toBe(404);
    expect(notTheirs.json().error).toMatchObject({ code: 'not_found', param: 'template' });
    await api.call('DELETE', `/api/sandboxes/${source.id}`);
    for (const name of names) await api.call('DELETE', `/api/templates/${name}`);
  });
});

describe('refusals: 422 invalid_request naming the field', () => {
  it.each([
    [
      'a package name apt would read as an option',
      { packages: ['jq', 'curl', '-o=x'] },
      'recipe.packages[2]',
    ],
    ['a package name with a space', { packages: ['jq python3'] }, 'recipe.packages[0]'],
    ['an empty recipe', { packages: [], run: [] }, 'recipe'],
    ['an empty command', { run: [''] }, 'recipe.run[0]'],
    ['a field that is not one', { packages: ['jq'], apt: true }, 'recipe.apt'],
  ])('a recipe with %s', async (_what, recipe, param) => {
    const name = unique('refused');
    const answer = await api.call('POST', '/api/templates', { body: { name, recipe } });
    expect(answer.statusCode, answer.body).toBe(422);
    expect(answer.json().error).toMatchObject({ code: 'invalid_request', param });
    expect((await api.call('GET', `/api/templates/${name}`)).statusCode).toBe(404);
  });

  it.each([
    ['no name', { recipe: { run: ['true'] } }, 'name'],
    ['a name that is not a DNS label', { name: 'Bad_Name', recipe: { run: ['true'] } }, 'name'],
    ['no recipe', { name: 'no-recipe' }, 'recipe'],
  ])('a template with %s', async (_what, body, param) => {
    const answer = await api.call('POST', '/api/templates', { body });
    expect(answer.statusCode, answer.body).toBe(422);
    expect(answer.json().error).toMatchObject({ code: 'invalid_request', param });
  });

  it('a sandbox with a template that is neither an id nor a name, and a snapshot without a name', async () => {
    const sandbox = await api.call('POST', '/api/sandboxes', { body: { template: 'tpl_short' } });
    expect(sandbox.statusCode, sandbox.body).toBe(422);
    expect(sandbox.json().error.param).toBe('template');
    const source = await create();
    const snapshot = await api.call('POST', `/api/sandboxes/${source.id}/snapshot`, { body: {} });
    expect(snapshot.statusCode, snapshot.body).toBe(422);
    expect(snapshot.json().error.param).toBe('name');
    await api.call('DELETE', `/api/sandboxes/${source.id}`);
  });

  it('an unknown template: 404 on `template`', async () => {
    const answer = await api.call('POST', '/api/sandboxes', {
      body: { template: 'tpl_000000000000000000000000' },
    });
    expect(answer.statusCode, answer.body).toBe(404);
    expect(answer.json().error).toMatchObject({ code: 'not_found', param: 'template' });
  });
});
