import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApi } from '../../../api/app.ts';
import { SandboxStore } from '../../../api/sandboxes/store.ts';
import { decide, type SandboxCommand } from '../../../domain/sandboxes/decide.ts';
import { newSandboxId } from '../../../domain/sandboxes/names.ts';
import { logger } from '../../../platform/logger.ts';
import { publishSandboxEvents } from '../../../producers/sandbox.ts';
import { givenSandboxApi, prepareTimeoutMs, type SandboxApi } from './given.ts';

// A command must not be lost if the API dies between publishing its event and acting on the
// host (api/sandboxes/recovery.ts). Each case publishes what the API would have, as the API would
// (the decider, then the producer), and acts on nothing, as if the process had died there. A new
// API started with recovery then brings the host in line with the read model.

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

async function restartedApi(): Promise<FastifyInstance> {
  const restarted = await buildApi({
    logger,
    directory: api.platform.directory,
    producer: api.platform.producer,
    pool: api.platform.pool,
    ready: () => true,
    sandboxes: { runtime: api.runtime, now: api.clock.now, orgIds: () => [api.orgId], recoverOnStart: true },
  });
  await restarted.ready();
  return restarted;
}

describe('recovery on start', () => {
  it('finishes a create, a resume, a stop and a destroy that were published but not carried out', async () => {
    // A create published, the host never asked.
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
    });
    expect((await read(createdId)).status).toBe('starting');

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

    const restarted = await restartedApi();
    try {
      await expect.poll(async () => (await read(createdId)).status, { timeout: 20_000 }).toBe('running');
      const ran = await api.call('POST', `/api/sandboxes/${createdId}/exec`, {
        body: { command: 'hostname' },
      });
      expect(ran.json().data.stdout).toBe(`${createdId}\n`);
      await expect
        .poll(async () => (await api.runtime.status(toStop.id)).state, { timeout: 20_000 })
        .toBe('stopped');
      await expect
        .poll(() => existsSync(join(api.runtime.dir, toDestroy.id)), { timeout: 20_000 })
        .toBe(false);
      expect((await read(toStop.id)).status).toBe('stopped');
      await expect.poll(async () => (await read(toResume.id)).status, { timeout: 20_000 }).toBe('running');
      expect((await api.runtime.status(toResume.id)).state).toBe('running');
    } finally {
      await restarted.close();
    }
  });
});
