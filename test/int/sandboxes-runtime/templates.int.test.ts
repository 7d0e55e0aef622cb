import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTemplate } from '../../../sandbox-runtime/template-build.ts';
import { templateLayout } from '../../../sandbox-runtime/template-store.ts';
import { givenRuntime, prepareTimeoutMs, refusal, sandboxId } from './given.ts';

// Templates (issue 48): built from a recipe (Debian packages and commands, in a throwaway sandbox
// that reaches the Debian mirror the host's apt uses through its own network) or taken from a
// sandbox's files; a sandbox made from one has its files, and stacks on it as on the base.

const { runtime, cleanup } = givenRuntime();
const recipe = { packages: ['jq'], run: ['echo built > /etc/orrery-template', 'rm /etc/debian_version'] };
const tool = sandboxId('tpl-jq');

beforeAll(async () => {
  await runtime.prepare();
}, prepareTimeoutMs);
afterAll(async () => {
  await cleanup();
});

const run = async (id: string, command: string) => (await runtime.exec(id, command)).result;

describe('a template from a recipe', () => {
  it('has the Debian package and what the commands made, in every sandbox made from it', async () => {
    const template = await buildTemplate(runtime, tool, recipe);
    expect(template).toMatchObject({ id: tool, status: 'ready', failure: null, source: { kind: 'recipe' } });

    const plain = sandboxId('tpl-plain');
    const made = sandboxId('tpl-made');
    await runtime.create(plain, { size: 'small' });
    await runtime.create(made, { size: 'small', template: tool });
    expect((await run(plain, 'command -v jq')).exit_code).not.toBe(0);
    expect(await run(made, 'echo \'{"a": 2}\' | jq .a; cat /etc/orrery-template')).toMatchObject({
      exit_code: 0,
      stdout: '2\nbuilt\n',
    });
    // A file the recipe removed is gone (the layer's whiteout), and the base still has it.
    expect((await run(made, 'test -e /etc/debian_version')).exit_code).not.toBe(0);
    expect((await run(plain, 'test -e /etc/debian_version')).exit_code).toBe(0);
    // The template lies under the sandbox's own layer: its quota counts only what the sandbox writes.
    const used = Number((await run(made, 'df -B1 --output=used / | tail -1')).stdout.trim());
    expect(used).toBeLessThan(64 * 1024 * 1024);
    // A fork of it stands on the same template.
    const forked = sandboxId('tpl-fork');
    await runtime.fork(made, forked);
    expect((await run(forked, 'jq --version')).exit_code).toBe(0);
    for (const id of [plain, made, forked]) await runtime.destroy(id);
  }, 900_000);

  it('is built once: the same recipe again is taken as it is', async () => {
    const again = sandboxId('tpl-again');
    const template = await buildTemplate(runtime, again, recipe);
    expect(template.status).toBe('ready');
    expect(template.layers).toEqual(runtime.template(tool)?.layers);
    expect(existsSync(templateLayout(runtime.dir, again).log)).toBe(false); // nothing ran: no build log
  });

  it('that fails is `failed`, with the end of its build log', async () => {
    const broken = sandboxId('tpl-broken');
    const template = await buildTemplate(runtime, broken, { packages: ['no-such-package-orrery'], run: [] });
    expect(template.status).toBe('failed');
    expect(template.failure).toContain('Unable to locate package no-such-package-orrery');
    const refused = await refusal(runtime.create(sandboxId('tpl-none'), { template: broken }));
    expect(refused.code).toBe('template_not_ready');
    expect(refused.message).toContain(`Template ${broken} is failed`);
  }, 600_000);
});

describe('a template from a sandbox', () => {
  it("has the sandbox's files, over the template the sandbox stood on", async () => {
    const source = sandboxId('tpl-source');
    await runtime.create(source, { size: 'small', template: tool });
    await run(source, 'mkdir -p /srv/app && echo v1 > /srv/app/version && rm /etc/orrery-template');
    const snapshot = sandboxId('tpl-snap');
    const template = await runtime.snapshot(source, snapshot);
    expect(template).toMatchObject({ status: 'ready', source: { kind: 'snapshot', sandbox: source } });
    expect(template.layers.slice(1)).toEqual(runtime.template(tool)?.layers);

    await run(source, 'echo v2 > /srv/app/version'); // after the snapshot: not in it
    const made = sandboxId('tpl-from-snap');
    await runtime.create(made, { size: 'small', template: snapshot });
    expect(await run(made, 'cat /srv/app/version; jq --version >/dev/null && echo jq')).toMatchObject({
      stdout: 'v1\njq\n',
    });
    expect((await run(made, 'test -e /etc/orrery-template')).exit_code).not.toBe(0);

    // Deleting what sandboxes or other templates stand on is refused, naming them.
    const inUse = await refusal(runtime.deleteTemplate(tool));
    expect(inUse.code).toBe('template_in_use');
    expect(inUse.message).toContain(source);
    expect(inUse.message).toContain(`template ${snapshot}`);
    await runtime.destroy(made);
    await runtime.deleteTemplate(snapshot);
    expect(runtime.template(snapshot)).toBeUndefined();
    await runtime.destroy(source);
  });

  it('refuses an unknown template by name', async () => {
    const refused = await refusal(runtime.create(sandboxId('tpl-unknown'), { template: 'no-such-template' }));
    expect(refused).toMatchObject({ code: 'invalid_request', param: 'template' });
  });
});
