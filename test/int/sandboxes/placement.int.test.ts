import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { givenSandboxApi, prepareTimeoutMs, type SandboxApi } from './given.ts';

// Placement's refusals (issue 47) on a fleet of one small host: two cores and room for two small
// sandboxes. No host with room for the size is a 503 with Retry-After saying so, nothing made; a
// size no host could ever hold (its cores) is 409 on `size`; room freed is room again.

let api: SandboxApi;
beforeAll(async () => {
  api = await givenSandboxApi({ resources: { cores: 2, memoryMiB: 4096, memoryOvercommit: 1 } });
}, prepareTimeoutMs);
afterAll(() => api.cleanup());

describe('placement', () => {
  it('refuses a sandbox no host has room for with 503 and Retry-After, and places it once room is freed', async () => {
    const first = (await api.call('POST', '/api/sandboxes', { body: {} })).json().data;
    const second = (await api.call('POST', '/api/sandboxes', { body: {} })).json().data;
    expect([first.host, second.host]).toEqual([api.host.hostId, api.host.hostId]);
    const listed = async () => (await api.call('GET', '/api/sandboxes')).json().data.length;
    const before = await listed();

    const full = await api.call('POST', '/api/sandboxes', { body: { name: 'no-room' } });
    expect(full.statusCode).toBe(503);
    expect(full.headers['retry-after']).toBe('10');
    expect(full.json().error).toEqual({
      code: 'no_capacity',
      message: expect.stringMatching(/^No sandbox host has room for a `small` sandbox right now/),
    });
    // Nothing half-made: no sandbox, and its name is still free.
    expect(await listed()).toBe(before);

    // A stopped sandbox keeps its memory; a destroyed one gives it back.
    await api.call('POST', `/api/sandboxes/${first.id}/stop`);
    expect((await api.call('POST', '/api/sandboxes', { body: {} })).statusCode).toBe(503);
    await api.call('DELETE', `/api/sandboxes/${first.id}`);
    const placed = await api.call('POST', '/api/sandboxes', { body: { name: 'no-room' } });
    expect(placed.statusCode).toBe(201);
    for (const id of [second.id, placed.json().data.id]) await api.call('DELETE', `/api/sandboxes/${id}`);
  }, 120_000);

  it('refuses a size no host could hold with 409 on `size`, and says so in the catalog', async () => {
    const large = await api.call('POST', '/api/sandboxes', { body: { size: 'large' } });
    expect(large.statusCode).toBe(409);
    expect(large.json().error).toMatchObject({ code: 'size_unavailable', param: 'size' });
    const catalog = (await api.call('GET', '/api/catalog')).json().data;
    expect(
      Object.fromEntries(
        catalog.map((entry: { size: string; available: boolean }) => [entry.size, entry.available]),
      ),
    ).toEqual({
      small: true,
      standard: true,
      large: false,
      xl: false,
    });
  });
});
