import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, ensureEngine } from '../../../infra/containers/engine.ts';
import { ensureImages, orreryImage } from '../../../infra/containers/images.ts';
import { provision } from '../../../infra/provision.ts';
import { config, parseConfig } from '../../../platform/config.ts';
import { eventually } from '../../harness/eventually.ts';
import { freePort } from '../../harness/ports.ts';
import { createDatabases } from '../../harness/secure-cluster.ts';

// Issue 17's foundation: the project brings up a Docker-compatible engine itself (finding one, or
// installing and serving Debian's podman as root), builds the Orrery image on it without a
// registry, and a container of that image serves the API against the local stack on the host.
// On a machine where no engine can be brought up, this fails with the finder's message.
//
// The container shares the host's network (`--network=host`): the stack listens on loopback, and
// podman's host network is the simplest way there. Its API has databases of its own (Postgres and
// ClickHouse, migrated here): on the stack's own it would take every sandbox of the read model
// for one of its host's, and try to bring it in line with an empty runtime.

const log = (line: string) => process.stderr.write(`[containers] ${line}\n`);
const tenant = 'orrery_containers';
const name = `orrery-engine-test-${process.pid}`;
let engine: Engine;
let apiUrl: string;

function podman(args: string[]): string {
  const result = spawnSync(engine.cli, args, {
    encoding: 'utf8',
    env: { ...process.env, DOCKER_HOST: engine.dockerHost },
  });
  if (result.status !== 0)
    throw new Error(`${engine.cli} ${args[0]} failed (${result.status}): ${result.stderr}`);
  return result.stdout.trim();
}

describe('the Orrery image on an engine the project brings up', () => {
  beforeAll(async () => {
    engine = await ensureEngine(config(), log);
    await ensureImages(engine, log);

    const base = config();
    const postgresUrl = new URL(base.postgres.url);
    postgresUrl.pathname = `/${tenant}`;
    const environment: Record<string, string> = {
      ORRERY_POSTGRES_URL: postgresUrl.toString(),
      ORRERY_CLICKHOUSE_URL: base.clickhouse.url,
      ORRERY_CLICKHOUSE_DATABASE: tenant,
      ORRERY_KAFKA_BROKERS: base.kafka.brokers.join(','),
      ORRERY_REGISTRY_URL: base.registry.url,
      ORRERY_DEFAULT_MODEL: 'off',
      ORRERY_API_HOST: '127.0.0.1',
      ORRERY_API_PORT: String(await freePort()),
      ORRERY_LOG_LEVEL: 'warn',
    };
    await createDatabases(base, tenant);
    await provision(parseConfig({ ...process.env, ...environment }), log);
    apiUrl = `http://127.0.0.1:${environment.ORRERY_API_PORT}`;

    const started = Date.now();
    const env = Object.entries(environment).flatMap(([key, value]) => ['--env', `${key}=${value}`]);
    podman(['run', '--detach', '--rm', '--name', name, '--network=host', ...env, orreryImage, 'api']);
    log(`container started in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    await eventually(
      async () => {
        const answer = await fetch(`${apiUrl}/healthz`).then(
          (response) => response.status,
          () => undefined,
        );
        if (answer === 200) return true;
        const state = spawnSync(engine.cli, ['inspect', '--format', '{{.State.Status}}', name], {
          encoding: 'utf8',
        }).stdout.trim();
        if (state !== 'running')
          throw new Error(`the container is ${state || 'gone'} before /healthz answered`);
        return undefined;
      },
      60_000,
      `${apiUrl}/healthz from the container`,
    );
    log(
      `API in the container answers /healthz ${((Date.now() - started) / 1000).toFixed(1)} s after podman run`,
    );
  });

  afterAll(() => {
    if (engine) spawnSync(engine.cli, ['rm', '--force', '--time', '5', name], { encoding: 'utf8' });
  });

  it('runs as a user of its own, not root', () => {
    expect(podman(['exec', name, 'id', '-un'])).toBe('orrery');
  });

  it('answers /healthz 200 from the API process in the container', async () => {
    const response = await fetch(`${apiUrl}/healthz`);
    expect(response.status).toBe(200);
  });

  it('answers /readyz with its checks, ready once the keys are read and the stores answer', async () => {
    const body = await eventually(
      async () => {
        const response = await fetch(`${apiUrl}/readyz`);
        return response.status === 200 ? ((await response.json()) as unknown) : undefined;
      },
      30_000,
      '/readyz 200',
    );
    expect(body).toEqual({
      status: 'ready',
      checks: { keys: 'caught_up', postgres: 'ok', kafka: 'ok' },
    });
  });
});
