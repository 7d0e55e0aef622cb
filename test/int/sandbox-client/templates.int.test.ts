import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, Client, type Template } from '../../../packages/sandbox/src/index.ts';
import { givenSandboxApi, prepareTimeoutMs, type SandboxApi } from '../sandboxes/given.ts';

// @orrery/sandbox's templates (issue 48) against the real platform on a loopback port:
// `templates.create` and `waitUntilReady`, `sandboxes.create({ template })`, `sandbox.snapshot`,
// `templates.list/get/delete`, and the `ApiError`s of a failed build and of a template in use.

let api: SandboxApi;
let client: Client;
const run = `t${Date.now().toString(36)}`;
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

beforeAll(async () => {
  api = await givenSandboxApi();
  client = new Client({ apiKey: api.key, baseUrl: api.baseUrl });
}, prepareTimeoutMs);
afterAll(() => api.cleanup());

const buildTimeoutMs = 600_000;

describe('templates', () => {
  let tools: Template;

  it(
    'builds one from a recipe: building at once, ready after waitUntilReady',
    async () => {
      tools = await client.templates.create({
        name: `tools-${run}`,
        recipe: { packages: ['jq'], run: ['echo client > /etc/orrery-client'] },
      });
      expect(tools.status).toBe('building');
      expect(tools.id).toMatch(/^tpl_/);
      expect(await tools.waitUntilReady({ timeoutSeconds: 600, intervalSeconds: 0.2 })).toBe(tools);
      expect(tools.status).toBe('ready');
      // Typed from the API's document: the source is a recipe's or a snapshot's.
      const source = tools.data.source;
      expect(source.kind === 'recipe' ? source.packages : []).toEqual(['jq']);
    },
    buildTimeoutMs,
  );

  it('makes a sandbox from it by name, which shows it as `template`; a snapshot of that stands on it', async () => {
    const sandbox = await client.sandboxes.create({ template: tools.name, metadata: { run } });
    expect(sandbox.template).toBe(tools.id);
    expect((await sandbox.exec('jq --version && cat /etc/orrery-client')).stdout).toMatch(
      /^jq-.*\nclient\n$/s,
    );
    await sandbox.files.write('/srv/note.txt', new TextEncoder().encode('kept'));
    const snapshot = await sandbox.snapshot({ name: `note-${run}` });
    expect(snapshot).toMatchObject({ status: 'ready', name: `note-${run}` });
    expect(snapshot.data.parent).toBe(tools.id);

    const copy = await client.sandboxes.create({ template: snapshot.id });
    expect(new TextDecoder().decode(await copy.files.read('/srv/note.txt'))).toBe('kept');

    const inUse = await refusal(client.templates.delete(tools.name));
    expect(inUse).toBeInstanceOf(ApiError);
    expect(inUse).toMatchObject({ code: 'template_in_use', status: 409 });
    expect((inUse as ApiError).message).toContain(sandbox.id);

    for (const each of [copy, sandbox]) await each.destroy();
    expect((await snapshot.delete()).status).toBe('deleted');
    expect((await client.templates.delete(tools.id)).status).toBe('deleted');
    const names = (await client.templates.list()).map((each) => each.name);
    expect(names).not.toContain(tools.name);
    const gone = await refusal(client.templates.get(tools.name));
    expect(gone).toMatchObject({ code: 'not_found', status: 404 });
  });

  it(
    'waitUntilReady refuses a failed build with its failure; a sandbox from it is template_not_ready',
    async () => {
      const broken = await client.templates.create({
        name: `broken-${run}`,
        recipe: { packages: ['no-such-package-orrery'] },
      });
      const failed = await refusal(broken.waitUntilReady({ intervalSeconds: 0.2 }));
      expect(failed).toBeInstanceOf(ApiError);
      expect(failed).toMatchObject({ code: 'template_not_ready', param: 'template' });
      expect((failed as ApiError).message).toContain('Unable to locate package no-such-package-orrery');
      expect(broken.failure).toContain('Unable to locate package');
      const refused = await refusal(client.sandboxes.create({ template: broken.name }));
      expect(refused).toMatchObject({ code: 'template_not_ready', status: 409, param: 'template' });
      expect((await client.templates.get(broken.id)).status).toBe('failed');
      await broken.delete();
    },
    buildTimeoutMs,
  );

  it('refuses a bad recipe with the API’s param', async () => {
    const bad = await refusal(
      client.templates.create({ name: `bad-${run}`, recipe: { packages: ['jq', 'Not A Package'] } }),
    );
    expect(bad).toMatchObject({ code: 'invalid_request', status: 422, param: 'recipe.packages[1]' });
  });
});
