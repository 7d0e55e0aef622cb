import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createOrg, grantCredit } from '../../../api/admin/commands.ts';
import { answered, callWithKey, type FleetProcess, startFleet, type TestFleet } from '../../harness/fleet.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { openScreen } from '../../harness/rfb-client.ts';

// Orrery on many machines (issue 47), as `npm start` runs it with ORRERY_API_REPLICAS=2
// ORRERY_SANDBOX_HOSTS=2: two API processes and two sandbox-host processes on ports of their own,
// the hosts with state folders of their own. Sandboxes spread across the hosts; every sandbox
// route, the live screen and a 64 MiB file work through the replica that did not create the
// sandbox; a run placed through one replica is followed to its exit code through the other while
// the first is killed with -9.

let platform: TestPlatform;
let fleet: TestFleet;
let key: string;
let first: FleetProcess;
let second: FleetProcess;

/** A call to one replica with the file's key. */
const call = (api: FleetProcess, method: string, path: string, body?: unknown) =>
  callWithKey(api, key, method, path, body);
const json = answered;

beforeAll(async () => {
  platform = await startTestPlatform();
  fleet = await startFleet({ apis: 2, hosts: 2 });
  [first, second] = fleet.apis as [FleetProcess, FleetProcess];
  const org = await createOrg(platform.admin, 'Fleet');
  key = (await createApiKey(platform.admin, org.orgId, ['sandboxes:write'])).key;
  await grantCredit(platform.admin, org.orgId, 1000, 'fleet tests');
  // Each replica follows the org stream itself: both must know the key before the tests start.
  for (const api of fleet.apis)
    await eventually(
      async () => ((await call(api, 'GET', '/api/me')).status === 200 ? true : undefined),
      30_000,
      `${api.name} to know the key`,
    );
}, 600_000);

afterAll(async () => {
  await fleet?.stop();
  await platform?.stop();
}, 120_000);

describe('two API replicas and two sandbox hosts', () => {
  it('spreads twenty sandboxes across both hosts, whichever replica places them', async () => {
    const placed: { id: string; host: string }[] = [];
    for (let i = 0; i < 20; i++) {
      const created = await json(call(fleet.apis[i % 2]!, 'POST', '/api/sandboxes', {}), 201);
      placed.push({ id: created.data.id, host: created.data.host });
    }
    const byHost = new Map<string, number>();
    for (const { host } of placed) byHost.set(host, (byHost.get(host) ?? 0) + 1);
    // Placement gives each new sandbox to the host with the most memory free: ten each.
    expect([...byHost.values()]).toEqual([10, 10]);
    for (const { id } of placed) await json(call(first, 'DELETE', `/api/sandboxes/${id}`));
  }, 300_000);

  it('serves every sandbox route through the replica that did not create the sandbox', async () => {
    const sandbox = (await json(call(first, 'POST', '/api/sandboxes', { metadata: { via: 'first' } }), 201))
      .data;
    const path = `/api/sandboxes/${sandbox.id}`;
    expect((await json(call(second, 'GET', path))).data).toMatchObject({
      id: sandbox.id,
      host: sandbox.host,
    });
    const updated = await json(call(second, 'PATCH', path, { metadata: { via: 'second' } }));
    expect(updated.data.metadata).toEqual({ via: 'second' });

    const ran = await json(call(second, 'POST', `${path}/exec`, { command: 'hostname; echo $((6 * 7))' }));
    expect(ran.data).toMatchObject({ exit_code: 0, stdout: `${sandbox.id}\n42\n` });

    // 64 MiB each way, streamed through both processes.
    const bytes = randomBytes(64 * 1024 * 1024);
    const digest = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
    const written = await json(call(second, 'PUT', `${path}/files?path=/root/big.bin`, bytes));
    expect(written.data).toEqual({ path: '/root/big.bin', size_bytes: bytes.length });
    const read = await call(second, 'GET', `${path}/files?path=/root/big.bin`);
    expect(read.status).toBe(200);
    expect(digest(new Uint8Array(await read.arrayBuffer()))).toBe(digest(bytes));
    const sum = await json(call(second, 'POST', `${path}/exec`, { command: 'sha256sum /root/big.bin' }));
    expect(sum.data.stdout).toBe(`${digest(bytes)}  /root/big.bin\n`);

    expect((await json(call(second, 'POST', `${path}/stop`))).data.status).toBe('stopped');
    expect((await json(call(second, 'POST', `${path}/resume`))).data.status).toBe('running');
    const copy = (await json(call(second, 'POST', `${path}/fork`, {}), 201)).data;
    // A fork stays on its source's host, where its files are.
    expect(copy.host).toBe(sandbox.host);

    const desktop = await json(
      call(second, 'POST', `${path}/desktop`, { action: 'start', resolution: '800x600' }),
    );
    expect(desktop.data).toMatchObject({ running: true, size: '800x600' });
    expect((await json(call(second, 'GET', `${path}/desktop`))).data.running).toBe(true);
    const moved = await json(call(second, 'POST', `${path}/desktop/input`, { action: 'move', x: 10, y: 20 }));
    expect(moved.data).toBeDefined();
    const shot = await call(second, 'GET', `${path}/desktop/screenshot`);
    expect([shot.status, shot.headers.get('x-image-width'), shot.headers.get('x-image-height')]).toEqual([
      200,
      '800',
      '600',
    ]);
    expect(
      Buffer.from(await shot.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    const tree = await json(call(second, 'GET', `${path}/desktop/accessibility?depth=2`));
    expect(tree.data).toBeDefined();

    // The live screen through the other replica: RFB from the host, the token judged here.
    const token = (await json(call(second, 'POST', `${path}/tokens`, { abilities: ['view'] }), 201)).data
      .token;
    const screen = await openScreen(`${second.url.replace(/^http/, 'ws')}${path}/screen?token=${token}`);
    expect(screen.init?.width).toBe(800);
    const closed = screen.closed;
    // Stopping the desktop on its host ends the screen, with the host's words passed on to the page.
    await json(call(first, 'POST', `${path}/desktop`, { action: 'stop' }));
    expect(await closed).toEqual({ code: 1000, reason: 'desktop stopped' });

    for (const id of [copy.id, sandbox.id]) {
      expect((await json(call(second, 'DELETE', `/api/sandboxes/${id}`))).data.status).toBe('deleted');
    }
  }, 300_000);

  it('follows a run placed through one replica to its exit code through the other, while the first is killed -9', async () => {
    const placed = (
      await json(
        call(first, 'POST', '/api/runs', {
          command: 'echo started; sleep 4; echo done; exit 7',
          ceiling_cents: 5,
          name: 'outlives-its-api',
        }),
        201,
      )
    ).data;
    const following = call(second, 'GET', `/api/runs/${placed.id}/output?follow=true`);
    await first.kill();
    const followed = await following;
    expect(followed.status).toBe(200);
    const lines = (await followed.text())
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line));
    expect(
      lines
        .filter((line) => line.stream === 'stdout')
        .map((line) => line.text)
        .join(''),
    ).toBe('started\ndone\n');
    expect(lines.at(-1)).toMatchObject({ status: 'failed', exit_code: 7 });
    await first.start();
  }, 120_000);
});
