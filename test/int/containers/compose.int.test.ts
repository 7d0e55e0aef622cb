import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureEngine } from '../../../infra/containers/engine.ts';
import { ensureImages } from '../../../infra/containers/images.ts';
import { buildPartImages } from '../../../infra/containers/parts.ts';
import { localImages } from '../../../packages/testcontainers/src/stack.ts';
import { config } from '../../../platform/config.ts';
import { eventually } from '../../harness/eventually.ts';
import { oneSpanJson } from '../../harness/otlp-fixtures.ts';
import { freePort } from '../../harness/ports.ts';

// Issue 17: infra/compose.yaml gives a working platform. Here podman-compose (the venv's,
// infra/bootstrap.mjs) runs it on podman, the part images built without a registry standing in
// for the official ones (ORRERY_*_IMAGE), on free ports of the host. Podman before 4.6 reports no
// health, so podman-compose ignores `service_healthy`, and podman 4.3 cannot start a container
// whose `--requires` has exited: so the parts and the provisioning go up first, and the platform's
// processes once provisioning has ended, the order `docker compose up -d` keeps by itself.

const root = resolve(import.meta.dirname, '../../..');
const log = (line: string) => process.stderr.write(`[compose] ${line}\n`);
const project = `orrery-compose-${randomBytes(3).toString('hex')}`;
const environment: Record<string, string> = {
  ORRERY_POSTGRES_IMAGE: localImages.postgres,
  ORRERY_CLICKHOUSE_IMAGE: localImages.clickhouse,
  ORRERY_KAFKA_IMAGE: localImages.kafka,
  ORRERY_REGISTRY_IMAGE: localImages.registry,
};
let apiUrl = '';

/** A command's output; async, since the test's worker must keep answering vitest meanwhile. */
async function run(command: string, args: string[], timeoutMs = 180_000): Promise<string> {
  const { stdout } = await promisify(execFile)(command, args, {
    cwd: root,
    env: { ...process.env, ...environment },
    timeout: timeoutMs,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}
const compose = (...args: string[]) =>
  run(resolve(root, '.venv/bin/podman-compose'), ['-p', project, '-f', 'infra/compose.yaml', ...args]);
const admin = async (...args: string[]) =>
  JSON.parse(
    await run('podman', [
      'exec',
      `${project}_api_1`,
      '/app/infra/containers/entrypoint.sh',
      'admin',
      ...args,
      '--json',
    ]),
  );
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

describe('infra/compose.yaml', () => {
  beforeAll(async () => {
    const engine = await ensureEngine(config(), log);
    await ensureImages(engine, log);
    await buildPartImages(engine, config(), log);
    for (const part of ['POSTGRES', 'CLICKHOUSE', 'KAFKA', 'REGISTRY', 'API'])
      environment[`ORRERY_${part}_PORT`] = String(await freePort());
    apiUrl = `http://127.0.0.1:${environment.ORRERY_API_PORT}`;
  });

  afterAll(async () => {
    await compose('down');
  });

  it('brings up the platform, which takes a trace and shows it, and leaves nothing when brought down', async () => {
    const started = Date.now();
    await compose('up', '-d', '--no-deps', 'postgres', 'clickhouse', 'kafka', 'registry', 'provision');
    expect((await run('podman', ['wait', `${project}_provision_1`], 200_000)).trim()).toBe('0');
    log(`parts up and provisioned in ${seconds(started)}`);
    await compose('up', '-d', '--no-deps', 'api', 'consumers', 'jobs');
    await eventually(
      async () => ((await fetch(`${apiUrl}/readyz`).catch(() => undefined))?.ok ? true : undefined),
      90_000,
      'the API to be ready',
    );
    log(`the API ready ${seconds(started)} after \`up\``);
    // Each health check passes in these images too (podman runs them only when asked, without systemd).
    for (const service of ['postgres', 'clickhouse', 'kafka', 'registry', 'api', 'consumers', 'jobs'])
      await eventually(
        () =>
          run('podman', ['healthcheck', 'run', `${project}_${service}_1`])
            .then(() => true)
            .catch(() => undefined),
        30_000,
        `${service}'s health check`,
      );

    const { orgId } = await admin('org', 'create', '--name', 'Compose');
    await admin('tracing', 'enable', '--org', orgId);
    const { key } = await admin('key', 'create', '--org', orgId, '--scopes', 'traces:write');
    const traceId = randomBytes(16).toString('hex');
    const sent = await fetch(`${apiUrl}/api/otlp/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(oneSpanJson(traceId)),
    });
    expect(await sent.json()).toEqual({});
    const trace = await eventually(
      async () => {
        const response = await fetch(`${apiUrl}/api/traces/${traceId}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        return response.ok ? ((await response.json()) as { data: { root_span_name: string } }) : undefined;
      },
      30_000,
      'the trace in the read model',
    );
    expect(trace.data.root_span_name).toBe('checkout');

    const stopping = Date.now();
    await compose('down');
    log(`brought down in ${seconds(stopping)}`);
    const left = await run('podman', [
      'ps',
      '--all',
      '--quiet',
      '--filter',
      `label=io.podman.compose.project=${project}`,
    ]);
    expect(left.trim()).toBe('');
  }, 400_000);
});
