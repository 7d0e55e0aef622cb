import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide, type SandboxCommand } from '../../../domain/sandboxes/decide.ts';
import { newSandboxId } from '../../../domain/sandboxes/names.ts';
import type { TemplateCommandBody } from '../../../domain/templates/decide.ts';
import { newTemplateId } from '../../../domain/templates/names.ts';
import { publishSandboxEvents } from '../../../producers/sandbox.ts';
import { recordTemplateCommand, templateCommand } from '../../../producers/template.ts';
import { SandboxStore } from '../../../stores/sandboxes.ts';
import { TemplateStore } from '../../../stores/templates.ts';
import { startTestHost } from '../../harness/sandbox-host.ts';
import { givenSandboxApi, prepareTimeoutMs, type SandboxApi } from './given.ts';

// A command must not be lost if the sandbox host dies between publishing its event and acting on
// its runtime (sandbox-host/recovery.ts). Each case publishes what the host would have, as the
// host would (the decider, then the producer), and acts on nothing, as if the process had died
// there. The host started again over the same state folder (the same host) with recovery then
// brings its runtime in line with the read model.

let api: SandboxApi;
beforeAll(async () => {
  api = await givenSandboxApi();
}, prepareTimeoutMs);
afterAll(() => api.cleanup());

const store = () => new SandboxStore(api.platform.pool);

/** Decides and publishes one command on the read model's state, as the API does, and waits until it is projected. */
async function publishOnly(command: SandboxCommand): Promise<void> {
  const before = await store().byId(command.sandboxId);
  const events = decide(command, before?.sandbox);
  expect(events).toHaveLength(1);
  await publishSandboxEvents(api.platform.producer, events);
  const version = (before?.version ?? 0) + 1;
  expect(await store().waitForVersion(command.sandboxId, version, 10_000)).toBe(true);
}

const meta = (sandboxId: string) => ({
  eventId: randomUUID(),
  sandboxId,
  orgId: api.orgId,
  now: api.clock.now(),
});
const read = async (id: string) => (await api.call('GET', `/api/sandboxes/${id}`)).json().data;

/** The file's host stopped and started again over the same state folder, recovering on start. */
async function restartedHost(): Promise<void> {
  const before = api.host.hostId;
  await api.host.stop();
  api.host = await startTestHost({ ...api.platform, apiUrl: api.baseUrl, fleet: api.fleet }, api.runtime, {
    now: api.clock.now,
    recoverOnStart: true,
  });
  expect(api.host.hostId).toBe(before);
}

describe('recovery on start', () => {
  it('finishes a create, a resume, a stop, a destroy and a network update that were published but not carried out', async () => {
    // A create published (without a network), the host never asked.
    const createdId = newSandboxId(randomBytes);
    await publishOnly({
      ...meta(createdId),
      type: 'CreateSandbox',
      name: `recover-${createdId.slice(-6)}`,
      nameTaken: false,
      size: 'small',
      metadata: { recovered: 'yes' },
      idleTimeoutSeconds: 0,
      idempotencyKey: null,
      host: api.host.hostId,
      network: { egress: 'none', allow: [], deny: [] },
      template: null,
    });
    expect((await read(createdId)).status).toBe('starting');

    // A new network policy published for a running sandbox, its runtime never told.
    const toRestrict = (await api.call('POST', '/api/sandboxes', { body: {} })).json().data;
    const restricted = { egress: 'open', allow: [], deny: ['198.51.100.0/24', 'example.com'] } as const;
    await publishOnly({
      ...meta(toRestrict.id),
      type: 'UpdateSandbox',
      network: { ...restricted, allow: [], deny: [...restricted.deny] },
    });
    expect((await api.runtime.status(toRestrict.id)).network).toEqual({
      egress: 'open',
      allow: [],
      deny: [],
    });

    // A stop and a destroy published for sandboxes that still run on the host.
    const toStop = (await api.call('POST', '/api/sandboxes', { body: {} })).json().data;
    const toDestroy = (await api.call('POST', '/api/sandboxes', { body: {} })).json().data;
    await publishOnly({ ...meta(toStop.id), type: 'StopSandbox' });
    await publishOnly({ ...meta(toDestroy.id), type: 'DestroySandbox' });
    // A resume published for a sandbox the host keeps frozen.
    const toResume = (await api.call('POST', '/api/sandboxes', { body: {} })).json().data;
    await api.call('POST', `/api/sandboxes/${toResume.id}/stop`);
    await publishOnly({ ...meta(toResume.id), type: 'ResumeSandbox' });
    expect((await read(toResume.id)).status).toBe('starting');
    expect((await api.runtime.status(toResume.id)).state).toBe('stopped');
    expect((await api.runtime.status(toStop.id)).state).toBe('running');
    expect(existsSync(join(api.runtime.dir, toDestroy.id))).toBe(true);

    await restartedHost();
    await expect.poll(async () => (await read(createdId)).status, { timeout: 20_000 }).toBe('running');
    const ran = await api.call('POST', `/api/sandboxes/${createdId}/exec`, {
      body: { command: 'hostname' },
    });
    expect(ran.json().data.stdout).toBe(`${createdId}\n`);
    expect((await api.runtime.status(createdId)).network).toEqual({ egress: 'none', allow: [], deny: [] });
    await expect
      .poll(async () => (await api.runtime.status(toRestrict.id)).network, { timeout: 20_000 })
      .toEqual(restricted);
    await expect
      .poll(async () => (await api.runtime.status(toStop.id)).state, { timeout: 20_000 })
      .toBe('stopped');
    await expect.poll(() => existsSync(join(api.runtime.dir, toDestroy.id)), { timeout: 20_000 }).toBe(false);
    expect((await read(toStop.id)).status).toBe('stopped');
    await expect.poll(async () => (await read(toResume.id)).status, { timeout: 20_000 }).toBe('running');
    expect((await api.runtime.status(toResume.id)).state).toBe('running');
  });
});

describe('templates a host was making when it stopped (issue 48)', () => {
  const templates = () => new TemplateStore(api.platform.pool);
  const request = (name: string, body: TemplateCommandBody) =>
    recordTemplateCommand(
      { producer: api.platform.producer, readModel: templates(), timeoutMs: 10_000 },
      templateCommand({ id: newTemplateId(randomBytes), orgId: api.orgId }, body, api.clock.now()),
      undefined,
    ).then(({ template }) => {
      expect(template).toMatchObject({ name, status: 'building' });
      return template;
    });
  const status = async (id: string) => (await api.call('GET', `/api/templates/${id}`)).json().data;

  it('ends one its runtime never finished as failed, saying so; one its runtime finished as ready', async () => {
    // A build recorded, never run: the process died before it began.
    const cut = await request('cut-short', {
      type: 'CreateFromRecipe',
      name: 'cut-short',
      nameTaken: false,
      recipe: { packages: [], run: ['true'] },
      host: api.host.hostId,
    });
    // A snapshot recorded and made by the runtime, its end never recorded.
    const source = (await api.call('POST', '/api/sandboxes', { body: {} })).json().data;
    await api.call('POST', `/api/sandboxes/${source.id}/exec`, { body: { command: 'echo kept > /kept' } });
    const made = await request('made', {
      type: 'SnapshotSandbox',
      name: 'made',
      nameTaken: false,
      sandbox: (await store().byId(source.id))?.sandbox,
    });
    await api.runtime.snapshot(source.id, made.id);

    await restartedHost();
    await expect.poll(async () => (await status(cut.id)).status, { timeout: 20_000 }).toBe('failed');
    expect((await status(cut.id)).failure).toMatch(/stopped while the template was being made/);
    await expect.poll(async () => (await status(made.id)).status, { timeout: 20_000 }).toBe('ready');
    const copy = await api.call('POST', '/api/sandboxes', { body: { template: 'made' } });
    expect(copy.statusCode, copy.body).toBe(201);
    const read = await api.call('POST', `/api/sandboxes/${copy.json().data.id}/exec`, {
      body: { command: 'cat /kept' },
    });
    expect(read.json().data.stdout).toBe('kept\n');
  });
});
