import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { decide, type RunCommand, type RunCommandBody } from '../../../domain/runs/decide.ts';
import { stretchUsage } from '../../../domain/runs/metering.ts';
import { evolve, type Run } from '../../../domain/runs/run.ts';
import { logger } from '../../../platform/logger.ts';
import { publishRunEvents } from '../../../producers/run.ts';
import { publishUsage } from '../../../producers/usage.ts';
import { Runner } from '../../../sandbox-host/runner.ts';
import { RunStore } from '../../../stores/runs.ts';
import { eventually } from '../../harness/platform.ts';
import { givenRunApi, prepareTimeoutMs, type RunApi } from './given.ts';

// A run left running by a sandbox host process that died must not stay running forever (issue
// 16): on start, the host's recovery finishes it as failed saying why, bills it the seconds
// recorded (publishing their usage again, which counts once), and destroys its sandbox.

let api: RunApi;
beforeAll(async () => {
  api = await givenRunApi();
}, prepareTimeoutMs);
afterAll(() => api.cleanup());

it('finishes a run a dead process left running as failed, billed what was recorded, its sandbox gone', async () => {
  const org = await api.newOrg('Recovered');
  const runId = `run_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
  const started = new Date(Date.now() - 120_000);
  // What the dead process had recorded: placed, started two minutes ago, 60 seconds metered.
  const steps: [RunCommandBody, Date][] = [
    [
      {
        type: 'PlaceRun',
        name: 'orphan',
        size: 'small',
        command: 'sleep 600',
        envNames: [],
        files: [],
        ceilingMicrodollars: 1_000_000,
        placedBy: { kind: 'key', keyId: org.keyId, personId: null },
        hasCredit: true,
        sizeAvailable: true,
        host: api.host.hostId,
        network: { egress: 'open', allow: [], deny: [] },
        template: null,
      },
      started,
    ],
    [{ type: 'ReportStarted' }, started],
    [{ type: 'MeterRun', stretchSeconds: 30 }, new Date(started.getTime() + 61_000)],
  ];
  let state: Run | undefined;
  for (const [body, now] of steps) {
    const events = decide(
      { ...body, eventId: randomUUID(), runId, orgId: org.orgId, now } as RunCommand,
      state,
    );
    await publishRunEvents(api.platform.producer, events);
    state = events.reduce(evolve, state);
  }
  expect(state).toMatchObject({ status: 'running', recordedSeconds: 60 });
  // It had published the usage of the first stretch before it died, not of the second.
  await publishUsage(api.platform.producer, [
    stretchUsage(state!, [0, 30], { eventId: randomUUID(), now: new Date(started.getTime() + 31_000) }),
  ]);
  // Its sandbox is still on the host.
  await api.runtime.create(runId);
  const read = () => api.call('GET', `/api/runs/${runId}`, { bearer: org.key });
  await eventually(async () => ((await read()).json().data?.status === 'running' ? true : undefined), 10_000);

  // A new process starts on the same host: its runner carries out none of the host's runs.
  const runner = new Runner({
    hostId: api.host.hostId,
    room: api.host.host.room,
    runtime: api.runtime,
    producer: api.platform.producer,
    store: new RunStore(api.platform.pool),
    pool: api.platform.pool,
    logger,
    now: () => new Date(),
    projectionTimeoutMs: 15_000,
  });
  expect(await runner.recover()).toEqual([runId]);

  const recovered = await eventually(async () => {
    const run = (await read()).json().data;
    return run.status === 'failed' ? run : undefined;
  }, 10_000);
  expect(recovered).toMatchObject({ exit_code: null, billed_seconds: 60, cost_cents: 0.12 });
  expect(recovered.failure).toMatch(/stopped \(a restart or a crash\) while it was running/);
  await expect(api.runtime.status(runId)).rejects.toThrow();
  // The 60 seconds recorded are billed once: the first stretch, published again, counts once.
  await eventually(async () => {
    const summary = (await api.call('GET', '/api/billing/summary', { bearer: org.key })).json().data;
    return summary.charges.find((c: { model: string }) => c.model === 'run:small')?.seconds === 60
      ? true
      : undefined;
  }, 15_000);
  // A second recovery finds nothing to do.
  expect(await runner.recover()).toEqual([]);
});
