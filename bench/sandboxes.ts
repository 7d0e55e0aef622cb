// Sandboxes through the HTTP API, as a client package would drive them: time to a running
// sandbox (create resolves once running), time to a ready desktop (start resolves once the
// browser is ready), a screenshot's round trip (PNG over HTTP), and create from a template (a
// snapshot of the first sandbox) against create from the base, alternated (issue 48: "as fast to
// create"), on the platform as `npm start` runs it.
//   npx tsx bench/sandboxes.ts [--sandboxes 5] [--screenshots 30]
import { parseArgs } from 'node:util';
import { createApiKey, createOrg } from '../api/admin/commands.ts';
import { createPgPool } from '../platform/postgres.ts';
import { createEventProducer } from '../producers/producer.ts';
import { machineLine, percentile } from './machine.ts';
import { startPlatformProcesses } from './platform-process.ts';

const { values } = parseArgs({
  options: { sandboxes: { type: 'string', default: '5' }, screenshots: { type: 'string', default: '30' } },
});
const count = Number(values.sandboxes);
const screenshots = Number(values.screenshots);

const platform = await startPlatformProcesses({ api: 18480, consumers: 18490 });
const pool = createPgPool(2);
const producer = await createEventProducer('orrery-bench');
const created: string[] = [];
let key = '';
let templateId: string | undefined;
try {
  const org = await createOrg({ pool, producer }, 'Sandbox Bench');
  ({ key } = await createApiKey({ pool, producer }, org.orgId, ['sandboxes:write']));
  await new Promise((resolve) => setTimeout(resolve, 500));
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${platform.baseUrl}/api${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return response;
  };

  const toRunning: number[] = [];
  const toDesktop: number[] = [];
  const shots: number[] = [];
  for (let index = 0; index < count; index += 1) {
    let started = performance.now();
    const sandbox = (await (await call('POST', '/sandboxes', {})).json()) as {
      data: { id: string; status: string };
    };
    toRunning.push(performance.now() - started);
    created.push(sandbox.data.id);
    started = performance.now();
    await call('POST', `/sandboxes/${sandbox.data.id}/desktop`, { action: 'start' });
    toDesktop.push(performance.now() - started);
    for (let shot = 0; shot < screenshots; shot += 1) {
      started = performance.now();
      await (await call('GET', `/sandboxes/${sandbox.data.id}/desktop/screenshot`)).arrayBuffer();
      shots.push(performance.now() - started);
    }
  }
  // A template of the first sandbox's files, then creates from it and from the base in turn.
  const [first] = created;
  if (first === undefined) throw new Error('--sandboxes must be at least 1');
  const snapshot = (await (
    await call('POST', `/sandboxes/${first}/snapshot`, { name: `bench-${Date.now()}` })
  ).json()) as { data: { id: string; status: string } };
  templateId = snapshot.data.id;
  for (let status = snapshot.data.status; status !== 'ready'; ) {
    if (status === 'failed') throw new Error(`the snapshot ${templateId} failed`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    status = ((await (await call('GET', `/templates/${templateId}`)).json()) as { data: { status: string } })
      .data.status;
  }
  const fromBase: number[] = [];
  const fromTemplate: number[] = [];
  for (let index = 0; index < count * 2; index += 1) {
    const [list, body] = index % 2 === 0 ? [fromBase, {}] : [fromTemplate, { template: templateId }];
    const started = performance.now();
    const sandbox = (await (await call('POST', '/sandboxes', body)).json()) as { data: { id: string } };
    list.push(performance.now() - started);
    await call('DELETE', `/sandboxes/${sandbox.data.id}`);
  }

  for (const list of [toRunning, toDesktop, shots, fromBase, fromTemplate]) list.sort((a, b) => a - b);
  const line = (name: string, list: number[]) =>
    `  ${name}: p50 ${percentile(list, 50).toFixed(0)} ms, max ${(list.at(-1) ?? Number.NaN).toFixed(0)} ms (${list.length})`;
  console.log(machineLine());
  console.log(`sandboxes: ${count} sandboxes, ${screenshots} screenshots each, through the HTTP API`);
  console.log(line('create to running', toRunning));
  console.log(line('desktop start to ready', toDesktop));
  console.log(line('screenshot round trip (1280x800 PNG)', shots));
  console.log(line('create to running, from the base', fromBase));
  console.log(line('create to running, from a template', fromTemplate));
} finally {
  for (const id of created) {
    await fetch(`${platform.baseUrl}/api/sandboxes/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${key}` },
    }).catch(() => undefined);
  }
  if (templateId !== undefined)
    await fetch(`${platform.baseUrl}/api/templates/${templateId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${key}` },
    }).catch(() => undefined);
  await platform.stop();
  await producer.disconnect();
  await pool.end();
}
