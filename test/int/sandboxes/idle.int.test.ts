import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../harness/platform.ts';
import { upperFile } from '../sandboxes-runtime/given.ts';
import { givenSandboxApi, prepareTimeoutMs, type SandboxApi } from './given.ts';

// The idle timeout (spec, "States and transitions": a running sandbox with `idleTimeoutSeconds`
// > 0 and no use for that long is stopped). The job runs every 100 ms here, on the test's clock;
// the decider waits one use-recording interval (10 s) longer than the timeout, so it never stops
// a sandbox early.

let api: SandboxApi;
beforeAll(async () => {
  api = await givenSandboxApi({ idleCheckMs: 100 });
}, prepareTimeoutMs);
afterAll(() => api.cleanup());

const create = async (idle: number) =>
  (await api.call('POST', '/api/sandboxes', { body: { idle_timeout_seconds: idle } })).json().data as {
    id: string;
  };
const statusOf = async (id: string) => (await api.call('GET', `/api/sandboxes/${id}`)).json().data.status;
/** A whole pass of the job on the clock as it is now: what it would stop shows stopped after. */
const passes = () => api.afterIdlePass();

describe('idle timeout', () => {
  it('stops a sandbox unused for its timeout (plus the recording interval), and no other', async () => {
    const idle = await create(60);
    const never = await create(0);
    const longer = await create(3600);
    api.clock.advance(65);
    await passes();
    expect(await statusOf(idle.id)).toBe('running');
    api.clock.advance(6);
    await expect.poll(() => statusOf(idle.id), { timeout: 5000 }).toBe('stopped');
    // The read model shows it first; the host follows (the decision is recorded before it acts).
    await expect
      .poll(async () => (await api.runtime.status(idle.id)).state, { timeout: 5000 })
      .toBe('stopped');
    expect(await statusOf(never.id)).toBe('running');
    expect(await statusOf(longer.id)).toBe('running');
    // A stopped sandbox resumes as usual, and its idle clock starts again.
    expect((await api.call('POST', `/api/sandboxes/${idle.id}/resume`)).json().data.status).toBe('running');
    await passes();
    expect(await statusOf(idle.id)).toBe('running');
  });

  it('exec is use: the timeout counts from the last use', async () => {
    const used = await create(60);
    api.clock.advance(50);
    const ran = await api.call('POST', `/api/sandboxes/${used.id}/exec`, { body: { command: 'true' } });
    expect(ran.statusCode).toBe(200);
    const lastUsed = (await api.call('GET', `/api/sandboxes/${used.id}`)).json().data.last_used_at;
    expect(new Date(lastUsed).getTime()).toBeGreaterThan(api.clock.now().getTime() - 5000);
    api.clock.advance(60);
    await passes();
    expect(await statusOf(used.id)).toBe('running');
    api.clock.advance(11);
    await expect.poll(() => statusOf(used.id), { timeout: 5000 }).toBe('stopped');
  });

  it('a use in progress holds it: a long exec is not stopped halfway', async () => {
    const busy = await create(60);
    const running = api.call('POST', `/api/sandboxes/${busy.id}/exec`, {
      body: { command: 'touch /root/busy; sleep 2; echo done' },
    });
    // The exec is in progress once its command has begun.
    await eventually(async () => upperFile(api.dir, busy.id, 'root/busy'), 5_000, 'the exec to begin');
    api.clock.advance(120);
    await passes();
    expect(await statusOf(busy.id)).toBe('running');
    expect((await running).json().data.stdout).toBe('done\n');
  });

  it('update sets a timeout on a sandbox that had none', async () => {
    const later = await create(0);
    await api.call('PATCH', `/api/sandboxes/${later.id}`, { body: { idle_timeout_seconds: 60 } });
    api.clock.advance(71);
    await expect.poll(() => statusOf(later.id), { timeout: 5000 }).toBe('stopped');
  });
});
