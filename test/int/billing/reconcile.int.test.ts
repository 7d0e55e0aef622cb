import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utcDay } from '../../../domain/billing/day.ts';
import { postCharges } from '../../../jobs/post-charges.ts';
import { reconcile } from '../../../jobs/reconcile.ts';
import { publishOrgEvents } from '../../../producers/org.ts';
import { eventually } from '../../harness/platform.ts';
import {
  type Customer,
  type InferenceService,
  invoke,
  newCustomer,
  startInferenceService,
  titleBody,
} from '../inference/service.ts';

// Reconciliation (jobs/reconcile.ts): the request log in ClickHouse against the Postgres
// rollups and the charges posted; clean when they agree, a difference planted in either is
// found, the command exits non-zero, and its documented repair makes it clean again.

const run = promisify(execFile);
let service: InferenceService;
let customer: Customer;
beforeAll(async () => {
  service = await startInferenceService();
  customer = await newCustomer(service, { creditCents: 500, name: 'Reconciled' });
  service.model.script(() => ({ line: 'Password reset help', usage: { input: 60_000, output: 3 } }));
  for (let i = 0; i < 3; i += 1)
    expect((await invoke(service.api, 'scribe/v1/titles', titleBody, customer.key)).statusCode).toBe(200);
  await eventually(async () => {
    const { rows } = await service.platform.pool.query('SELECT requests FROM usage_daily WHERE org_id = $1', [
      customer.orgId,
    ]);
    return rows[0]?.requests === 3 ? true : undefined;
  });
  await postCharges(
    { pool: service.platform.pool, producer: service.platform.producer },
    { orgIds: [customer.orgId] },
  );
});
afterAll(() => service.stop());

const deps = () => ({
  pool: service.platform.pool,
  clickhouse: service.platform.clickhouse,
  producer: service.platform.producer,
});

/** The command as an operator runs it; its exit code and output. */
async function command(...args: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await run('npx', ['tsx', 'jobs/reconcile.ts', '--org', customer.orgId, ...args], {
      env: { ...process.env, ORRERY_LOG_LEVEL: 'error', ORRERY_LOG_DESTINATION: 'stderr' },
    });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

describe('reconciliation', () => {
  it('is clean when the log, the rollups and the charges agree', async () => {
    expect(await reconcile(deps(), { orgIds: [customer.orgId] })).toEqual([]);
    const { code, stdout } = await command('--json');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ differences: [] });
  });

  it('finds a planted rollup difference, exits non-zero, and --repair rebuilds the rollup from the log', async () => {
    await service.platform.pool.query(
      'UPDATE usage_daily SET input_tokens = input_tokens - 60000, requests = requests - 1 WHERE org_id = $1',
      [customer.orgId],
    );
    const at = { orgId: customer.orgId, model: 'scribe', day: utcDay(Date.now()) };
    expect(await reconcile(deps(), { orgIds: [customer.orgId] })).toEqual([
      {
        ...at,
        kind: 'rollup',
        log: { requests: 3, inputTokens: 180_000, outputTokens: 9 },
        rollup: { requests: 2, inputTokens: 120_000, outputTokens: 9 },
      },
    ]);
    const found = await command();
    expect(found.code).toBe(1);
    expect(found.stdout).toMatch(/^rollup .* the log has 3 requests, 180000 input/m);

    const repaired = await command('--repair', '--json');
    expect(repaired.code).toBe(0);
    expect(JSON.parse(repaired.stdout)).toMatchObject({ repaired: { rollupsRewritten: 1 }, remaining: [] });
    const { rows } = await service.platform.pool.query(
      'SELECT requests, input_tokens FROM usage_daily WHERE org_id = $1',
      [customer.orgId],
    );
    expect(rows).toEqual([{ requests: 3, input_tokens: 180_000 }]);
  });

  it('finds a charge the log does not justify', async () => {
    await publishOrgEvents(service.platform.producer, [
      {
        type: 'ChargePosted',
        eventId: randomUUID(),
        orgId: customer.orgId,
        occurredAt: new Date(),
        chargeId: `chg_planted_${randomUUID()}`,
        model: 'scribe',
        day: utcDay(Date.now()),
        cents: 5,
      },
    ]);
    const differences = await eventually(async () => {
      const found = await reconcile(deps(), { orgIds: [customer.orgId] });
      return found.length > 0 ? found : undefined;
    });
    expect(differences).toEqual([
      {
        orgId: customer.orgId,
        model: 'scribe',
        day: utcDay(Date.now()),
        kind: 'overcharged',
        priceCents: 2,
        chargedCents: 7,
      },
    ]);
    const { code } = await command();
    expect(code).toBe(1);
  });
});
