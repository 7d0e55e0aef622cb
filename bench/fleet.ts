// The fleet (issue 47), as `npm start` runs it with ORRERY_API_REPLICAS and ORRERY_SANDBOX_HOSTS:
// sandbox creates a second and time to running with one host and with two (creates sent to both
// API replicas in turn, `--concurrency` at a time), and what the API replica's hop to the host
// adds to an exec and to a screenshot: the same call sent to the host's own route (with the host
// secret) and through an API replica, alternated, p50 of each and of their difference.
//   npx tsx bench/fleet.ts [--sandboxes 20] [--concurrency 4] [--calls 200]
import './quiet-logs.ts';
import { parseArgs } from 'node:util';
import { createApiKey, createOrg } from '../api/admin/commands.ts';
import { config } from '../platform/config.ts';
import { hostAuthorization } from '../platform/host-secret.ts';
import { createPgPool } from '../platform/postgres.ts';
import { createEventProducer } from '../producers/producer.ts';
import { hostPath, hostPaths } from '../schemas/sandbox-hosts.ts';
import { machineLine, percentile } from './machine.ts';
import { startPlatformProcesses } from './platform-process.ts';

const { values } = parseArgs({
  options: {
    sandboxes: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '4' },
    calls: { type: 'string', default: '200' },
  },
});
const sandboxCount = Number(values.sandboxes);
const concurrency = Number(values.concurrency);
const calls = Number(values.calls);

const pool = createPgPool(2);
const producer = await createEventProducer('orrery-bench');
const ms = (value: number) => `${value.toFixed(1)} ms`;
const sorted = (list: number[]) => [...list].sort((a, b) => a - b);

async function keyFor(name: string): Promise<string> {
  const org = await createOrg({ pool, producer }, name);
  return (await createApiKey({ pool, producer }, org.orgId, ['sandboxes:write'])).key;
}

/** A request that must succeed; its answer. */
async function must(url: string, init: RequestInit): Promise<Response> {
  const response = await fetch(url, init);
  if (!response.ok)
    throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${await response.text()}`);
  return response;
}

async function waitForKey(apiUrls: string[], key: string): Promise<void> {
  for (const url of apiUrls)
    for (let tries = 0; ; tries++) {
      const me = await fetch(`${url}/api/me`, { headers: { authorization: `Bearer ${key}` } });
      if (me.ok) break;
      if (tries > 200) throw new Error(`${url} never knew the key`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
}

/** Creates `sandboxCount` sandboxes, `concurrency` at a time, through the replicas in turn. */
async function creates(apiUrls: string[], key: string) {
  const toRunning: number[] = [];
  const hosts = new Map<string, number>();
  const ids: string[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < sandboxCount) {
        const index = next++;
        const began = performance.now();
        const answer = await must(`${apiUrls[index % apiUrls.length]}/api/sandboxes`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: '{}',
        });
        toRunning.push(performance.now() - began);
        const { data } = (await answer.json()) as { data: { id: string; host: string } };
        ids.push(data.id);
        hosts.set(data.host, (hosts.get(data.host) ?? 0) + 1);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { ids, toRunning: sorted(toRunning), perSecond: sandboxCount / seconds, hosts };
}

/** The same call on the host's own route and through a replica, alternated; p50s and the hop's. */
async function hop(
  viaApi: () => Promise<unknown>,
  direct: () => Promise<unknown>,
): Promise<{ api: number; host: number; added: number }> {
  const api: number[] = [];
  const host: number[] = [];
  const added: number[] = [];
  for (let i = 0; i < calls; i++) {
    let began = performance.now();
    await direct();
    const straight = performance.now() - began;
    began = performance.now();
    await viaApi();
    const through = performance.now() - began;
    host.push(straight);
    api.push(through);
    added.push(through - straight);
  }
  return {
    api: percentile(sorted(api), 50),
    host: percentile(sorted(host), 50),
    added: percentile(sorted(added), 50),
  };
}

console.log(machineLine());
console.log(`fleet: ${sandboxCount} sandboxes, ${concurrency} creates at a time, ${calls} calls a hop`);
try {
  for (const sandboxHosts of [1, 2]) {
    const platform = await startPlatformProcesses({
      api: 18480,
      consumers: 18490,
      apiReplicas: 2,
      sandboxHosts,
    });
    try {
      const key = await keyFor(`Fleet bench ${sandboxHosts}`);
      await waitForKey(platform.apiUrls, key);
      const made = await creates(platform.apiUrls, key);
      console.log(
        `  ${sandboxHosts} host${sandboxHosts === 1 ? ' ' : 's'}: ${made.perSecond.toFixed(2)} creates/s; create to running p50 ${ms(percentile(made.toRunning, 50))}, max ${ms(made.toRunning.at(-1) ?? Number.NaN)}; per host ${[...made.hosts.values()].join(' / ')}`,
      );
      if (sandboxHosts === 2) {
        const [id] = made.ids;
        const auth = { authorization: `Bearer ${key}` };
        const hostAuth = { authorization: hostAuthorization(config().fleet.secret) };
        const held = await (
          await must(`${platform.apiUrls[1]}/api/sandboxes/${id}`, { headers: auth })
        ).json();
        const hostUrl = await hostUrlOf(platform.fleet, (held as { data: { host: string } }).data.host);
        const exec = JSON.stringify({ command: 'true' });
        const execs = await hop(
          () =>
            must(`${platform.apiUrls[1]}/api/sandboxes/${id}/exec`, {
              method: 'POST',
              headers: { ...auth, 'content-type': 'application/json' },
              body: exec,
            }).then((answer) => answer.arrayBuffer()),
          () =>
            must(`${hostUrl}${hostPath(hostPaths.exec, id!)}`, {
              method: 'POST',
              headers: { ...hostAuth, 'content-type': 'application/json' },
              body: exec,
            }).then((answer) => answer.arrayBuffer()),
        );
        console.log(
          `  exec through a replica: p50 ${ms(execs.api)}; on the host's own route ${ms(execs.host)}; the hop adds ${ms(execs.added)} at p50`,
        );
        await must(`${platform.apiUrls[0]}/api/sandboxes/${id}/desktop`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ action: 'start', resolution: '1280x800' }),
        });
        const shots = await hop(
          () =>
            must(`${platform.apiUrls[1]}/api/sandboxes/${id}/desktop/screenshot`, { headers: auth }).then(
              (answer) => answer.arrayBuffer(),
            ),
          () =>
            must(`${hostUrl}${hostPath(hostPaths.screenshot, id!)}`, { headers: hostAuth }).then((answer) =>
              answer.arrayBuffer(),
            ),
        );
        console.log(
          `  1280x800 screenshot through a replica: p50 ${ms(shots.api)}; on the host's own route ${ms(shots.host)}; the hop adds ${ms(shots.added)} at p50`,
        );
      }
      for (const id of made.ids)
        await fetch(`${platform.apiUrls[0]}/api/sandboxes/${id}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${key}` },
        });
    } finally {
      await platform.stop();
    }
  }
} finally {
  await producer.disconnect();
  await pool.end();
}

async function hostUrlOf(fleet: string, hostId: string): Promise<string> {
  const { rows } = await pool.query<{ url: string }>(
    'SELECT url FROM sandbox_hosts WHERE fleet = $1 AND host_id = $2',
    [fleet, hostId],
  );
  if (!rows[0]) throw new Error(`host ${hostId} is not in fleet ${fleet}`);
  return rows[0].url;
}
