import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createOrg, grantCredit } from '../../../api/admin/commands.ts';
import { setHostDraining } from '../../../api/admin/hosts.ts';
import { writeOffLostHosts } from '../../../jobs/lost-hosts.ts';
import { logger } from '../../../platform/logger.ts';
import {
  answered,
  callWithKey,
  clearHost,
  type FleetProcess,
  startFleet,
  type TestFleet,
} from '../../harness/fleet.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';

// Hosts fail like machines do (issue 47): a sandbox host killed with -9 is started again and
// takes its sandboxes up with their files; while it is down a route to its sandboxes answers 503
// with Retry-After at once. A drained host gets nothing new. A host gone for good (its state gone
// too) is written off once its lease has run out for the grace period: its sandboxes lost
// (resume refused, saying why), its runs failed, new sandboxes on the other host.

let platform: TestPlatform;
let fleet: TestFleet;
let key: string;
let api: FleetProcess;

type Host = TestFleet['hosts'][number];

/** A call to the fleet's replica with the file's key. */
const call = (method: string, path: string, body?: unknown) => callWithKey(api, key, method, path, body);
const json = answered;

async function errorOf(response: Response): Promise<{ code: string; message: string }> {
  return ((await response.json()) as { error: { code: string; message: string } }).error;
}

/** The host's id, as its sandboxes name it: its row in the fleet, by the address it announced. */
async function idByName(host: Host): Promise<string> {
  const rows = await platform.pool.query<{ host_id: string }>(
    'SELECT host_id FROM sandbox_hosts WHERE fleet = $1 AND url = $2',
    [fleet.name, host.url],
  );
  const id = rows.rows[0]?.host_id;
  if (!id) throw new Error(`${host.name} has not announced itself`);
  return id;
}

beforeAll(async () => {
  platform = await startTestPlatform();
  fleet = await startFleet({ apis: 1, hosts: 2 });
  api = fleet.apis[0]!;
  const org = await createOrg(platform.admin, 'Fleet failures');
  key = (await createApiKey(platform.admin, org.orgId, ['sandboxes:write'])).key;
  await grantCredit(platform.admin, org.orgId, 1000, 'fleet failures');
  await eventually(
    async () => ((await call('GET', '/api/me')).status === 200 ? true : undefined),
    30_000,
    'the key',
  );
}, 600_000);

afterAll(async () => {
  await fleet?.stop();
  await platform?.stop();
}, 120_000);

describe('a sandbox host', () => {
  it('killed with -9 is unreachable at once (503, Retry-After), and once started again takes its sandboxes up with their files', async () => {
    const sandbox = (await json(call('POST', '/api/sandboxes', {}), 201)).data;
    const path = `/api/sandboxes/${sandbox.id}`;
    await json(call('POST', `${path}/exec`, { command: 'echo kept > /root/note' }));
    const holder = (
      await Promise.all(
        fleet.hosts.map(async (each) => ((await idByName(each)) === sandbox.host ? each : undefined)),
      )
    ).find((each) => each !== undefined);
    if (!holder) throw new Error('no host holds the sandbox');
    await holder.kill();

    const asked = Date.now();
    const refused = await call('POST', `${path}/exec`, { command: 'true' });
    expect(Date.now() - asked).toBeLessThan(2_000);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect((await errorOf(refused)).code).toBe('unavailable');

    await holder.start();
    const back = await eventually(
      async () => {
        const ran = await call('POST', `${path}/exec`, { command: 'cat /root/note' });
        return ran.status === 200 ? ((await ran.json()) as { data: { stdout: string } }).data : undefined;
      },
      30_000,
      'the sandbox back on its host',
    );
    expect(back.stdout).toBe('kept\n');
    expect((await json(call('GET', path))).data).toMatchObject({ status: 'running', host: sandbox.host });
  }, 180_000);

  it('hung (SIGSTOP) holds no caller hostage: a call in flight and a new one are 503 within 2 s', async () => {
    const sandbox = (await json(call('POST', '/api/sandboxes', {}), 201)).data;
    const path = `/api/sandboxes/${sandbox.id}`;
    const holder = (
      await Promise.all(
        fleet.hosts.map(async (each) => ((await idByName(each)) === sandbox.host ? each : undefined)),
      )
    ).find((each) => each !== undefined);
    if (!holder) throw new Error('no host holds the sandbox');
    // A call under way when the host hangs, and one sent while it hangs.
    const inFlight = call('POST', `${path}/exec`, { command: 'sleep 1; echo late' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    holder.hang(true);
    try {
      const asked = Date.now();
      const refused = await call('POST', `${path}/exec`, { command: 'true' });
      const tookMs = Date.now() - asked;
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(tookMs).toBeLessThan(2_000);
      expect((await inFlight).status).toBe(503);
    } finally {
      holder.hang(false);
    }
    // Back, it serves again.
    await eventually(
      async () =>
        (await call('POST', `${path}/exec`, { command: 'true' })).status === 200 ? true : undefined,
      15_000,
      'the host serving again',
    );
    await json(call('DELETE', path));
  }, 60_000);

  it('drained gets no new sandbox, while the ones it holds keep running', async () => {
    const [drained, other] = fleet.hosts as [Host, Host];
    const drainedId = await idByName(drained);
    const kept = (await json(call('POST', '/api/sandboxes', {}), 201)).data;
    await setHostDraining(platform.pool, drainedId, true);
    try {
      for (let i = 0; i < 3; i++) {
        const placed = (await json(call('POST', '/api/sandboxes', {}), 201)).data;
        expect(placed.host).toBe(await idByName(other));
        await json(call('DELETE', `/api/sandboxes/${placed.id}`));
      }
      const ran = await json(call('POST', `/api/sandboxes/${kept.id}/exec`, { command: 'echo still' }));
      expect(ran.data.stdout).toBe('still\n');
    } finally {
      await setHostDraining(platform.pool, drainedId, false);
    }
    await json(call('DELETE', `/api/sandboxes/${kept.id}`));
  }, 120_000);

  it('gone for good is written off after the grace period: sandboxes lost, runs failed, new ones elsewhere', async () => {
    const [survivor, doomed] = fleet.hosts as [Host, Host];
    const doomedId = await idByName(doomed);
    const survivorId = await idByName(survivor);
    // Something on the doomed host: a sandbox and a run that would go on for a minute.
    await setHostDraining(platform.pool, survivorId, true);
    let sandbox: { id: string };
    let run: { id: string };
    try {
      sandbox = (await json(call('POST', '/api/sandboxes', {}), 201)).data;
      run = (await json(call('POST', '/api/runs', { command: 'sleep 60', ceiling_cents: 5 }), 201)).data;
    } finally {
      await setHostDraining(platform.pool, survivorId, false);
    }
    expect((await json(call('GET', `/api/sandboxes/${sandbox.id}`))).data.host).toBe(doomedId);

    // The machine goes: its process, its sandboxes' processes and its files.
    await doomed.kill();
    await clearHost(doomed.dir);
    const graceSeconds = 2;
    const written = await eventually(
      async () => {
        const off = await writeOffLostHosts({
          pool: platform.pool,
          producer: platform.producer,
          logger,
          graceSeconds,
        });
        return off.find((each) => each.hostId === doomedId);
      },
      30_000,
      'the gone host written off',
    );
    expect(written.sandboxes).toContain(sandbox.id);
    expect(written.runs).toEqual([run.id]);

    const lost = (await json(call('GET', `/api/sandboxes/${sandbox.id}`))).data;
    expect(lost.status).toBe('lost');
    const resumed = await call('POST', `/api/sandboxes/${sandbox.id}/resume`);
    expect(resumed.status).toBe(409);
    expect(await errorOf(resumed)).toMatchObject({
      code: 'not_running',
      message: expect.stringMatching(/lost with its sandbox host.*cannot be resumed/),
    });
    expect((await call('POST', `/api/sandboxes/${sandbox.id}/exec`, { command: 'true' })).status).toBe(409);
    const failed = await eventually(
      async () => {
        const answer = (await json(call('GET', `/api/runs/${run.id}`))).data;
        return answer.status === 'failed' ? answer : undefined;
      },
      15_000,
      'the run failed',
    );
    expect(failed.failure).toMatch(new RegExp(`carrying out this run \\(${doomedId}\\) is gone`));

    // What needs no host still works on a lost sandbox; new sandboxes go to the host that is left.
    expect((await json(call('DELETE', `/api/sandboxes/${sandbox.id}`))).data.status).toBe('deleted');
    const placed = (await json(call('POST', '/api/sandboxes', {}), 201)).data;
    expect(placed.host).toBe(survivorId);
    await json(call('DELETE', `/api/sandboxes/${placed.id}`));
    // A second pass finds nothing more to write off.
    const again = await writeOffLostHosts({
      pool: platform.pool,
      producer: platform.producer,
      logger,
      graceSeconds,
    });
    expect(again.find((each) => each.hostId === doomedId)).toBeUndefined();
  }, 180_000);
});

describe('platform processes trust each other by the host secret', () => {
  it('refuses a host announcing itself with a wrong secret, in the JSON error shape', async () => {
    const refused = await fetch(`${api.url}/internal/hosts/host_intruder`, {
      method: 'PUT',
      headers: { authorization: 'Bearer not-the-secret', 'content-type': 'application/json' },
      body: JSON.stringify({}),
    });
    expect(refused.status).toBe(401);
    expect(await errorOf(refused)).toMatchObject({
      code: 'unauthorized',
      message: expect.stringMatching(/ORRERY_HOST_SECRET/),
    });
    const listed = await platform.pool.query('SELECT 1 FROM sandbox_hosts WHERE host_id = $1', [
      'host_intruder',
    ]);
    expect(listed.rowCount).toBe(0);
  });

  it('refuses a call to a host without the secret', async () => {
    const host = fleet.hosts[0]!;
    const refused = await fetch(`${host.url}/v1/sandboxes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ org_id: 'org_x', body: {} }),
    });
    expect(refused.status).toBe(401);
    expect((await errorOf(refused)).code).toBe('unauthorized');
  });
});
