import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, ensureEngine, testcontainersEnvironment } from '../../../infra/containers/engine.ts';
import { ensureImages } from '../../../infra/containers/images.ts';
import { buildPartImages } from '../../../infra/containers/parts.ts';
import { OrreryContainer, type StartedOrrery } from '../../../packages/testcontainers/src/index.ts';
import { config } from '../../../platform/config.ts';
import { oneSpanJson } from '../../harness/otlp-fixtures.ts';

// Issue 17, item 2: `@orrery/testcontainers` as a user's integration test uses it. Orrery and its
// stack start in containers of the images built here from Debian's packages and Maven Central
// (no registry), on a network of their own; a trace sent to the API is read back through it; and
// stopping leaves no container of the run behind.

const log = (line: string) => process.stderr.write(`[containers] ${line}\n`);
const runLabel = 'org.orrery.testcontainers.run';
let engine: Engine;
let orrery: StartedOrrery | undefined;

const containersOfRuns = () =>
  spawnSync(engine.cli, ['ps', '--all', '--quiet', '--filter', `label=${runLabel}`], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n')
    .filter(Boolean);

describe('OrreryContainer', () => {
  beforeAll(async () => {
    engine = await ensureEngine(config(), log);
    await ensureImages(engine, log);
    await buildPartImages(engine, config(), log);
    // testcontainers finds the engine as a user's test tells it to (the module's README).
    Object.assign(process.env, testcontainersEnvironment(engine));
  });

  afterAll(async () => {
    await orrery?.stop();
  });

  it('starts Orrery and its stack, with an org and the keys asked for', async () => {
    const started = Date.now();
    orrery = await new OrreryContainer()
      .withApiKey('ingest', ['traces:write'])
      .withApiKey('sandboxes', ['sandboxes:write'])
      .start();
    log(`Orrery and its stack started in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(orrery.org.id).toMatch(/^org_/);
    expect(orrery.apiKey('ingest').scopes).toEqual(['traces:write']);
    expect(orrery.apiKey('sandboxes').scopes).toEqual(['sandboxes:write']);
    expect(() => orrery!.apiKey('default')).toThrow('no key named "default"; keys: ingest, sandboxes');
    const me = await fetch(`${orrery.apiUrl}/api/me`, {
      headers: { authorization: `Bearer ${orrery.apiKey('ingest').key}` },
    });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({
      data: { org: { id: orrery.org.id, tracing_enabled: true }, key: { name: 'ingest' } },
    });
    // Seven containers on 2 cores: about 30 s alone, a minute beside another load (2026-11).
  }, 180_000);

  it('takes a trace and shows it once the read model has it', async () => {
    const traceId = randomBytes(16).toString('hex');
    const response = await fetch(`${orrery!.apiUrl}/api/otlp/v1/traces`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${orrery!.apiKey('ingest').key}`,
      },
      body: JSON.stringify(oneSpanJson(traceId)),
    });
    expect(await response.json()).toEqual({});
    const trace = (await orrery!.waitForTrace(traceId)) as { data: { spans: { name: string }[] } };
    expect(trace.data.spans.map((each) => each.name)).toEqual(['checkout']);
  });

  it('removes every container it started, and the network, when stopped', async () => {
    expect(containersOfRuns().length).toBeGreaterThanOrEqual(7);
    await orrery!.stop();
    orrery = undefined;
    expect(containersOfRuns()).toEqual([]);
  });
});
