import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utcDay } from '../../../domain/billing/day.ts';
import type { OrgEvent } from '../../../domain/orgs/events.ts';
import { postCharges } from '../../../jobs/post-charges.ts';
import { publishOrgEvents } from '../../../producers/org.ts';
import { publishUsage } from '../../../producers/usage.ts';
import { eventually } from '../../harness/platform.ts';
import {
  type Customer,
  type InferenceService,
  invoke,
  newCustomer,
  requestList,
  startInferenceService,
  titleBody,
} from '../inference/service.ts';

// Billing (spec 000, Limits: Price; Billing rules): usage totalled per org, model and UTC day in
// Postgres, each day priced once and posted as ChargePosted on the org stream by the posting
// job, the balance followed by the API for its 402.

let service: InferenceService;
beforeAll(async () => {
  service = await startInferenceService();
});
afterAll(() => service.stop());

const today = () => utcDay(Date.now());
const deps = () => ({ pool: service.platform.pool, producer: service.platform.producer });

/** `count` titles, each reported by the model as `tokens` input tokens, a few at a time. */
async function spend(customer: Customer, count: number, tokens: number): Promise<void> {
  service.model.script(() => ({ line: 'Password reset help', usage: { input: tokens, output: 4 } }));
  for (let done = 0; done < count; done += 10) {
    const batch = Array.from({ length: Math.min(10, count - done) }, () =>
      invoke(service.api, 'scribe/v1/titles', titleBody, customer.key),
    );
    for (const response of await Promise.all(batch)) expect(response.statusCode).toBe(200);
  }
}

async function rollup(orgId: string, day = today()) {
  const { rows } = await service.platform.pool.query<{ requests: number; input_tokens: number }>(
    `SELECT requests, input_tokens FROM usage_daily WHERE org_id = $1 AND model = 'scribe' AND day = $2`,
    [orgId, day],
  );
  return rows[0];
}

/** Waits until the rollup shows `requests` requests: the usage projection has caught up. */
const rolledUp = (orgId: string, requests: number, day = today()) =>
  eventually(
    async () => {
      const row = await rollup(orgId, day);
      return row && row.requests >= requests ? row : undefined;
    },
    20_000,
    `${requests} requests in the rollup`,
  );

async function chargedCents(orgId: string): Promise<number> {
  const { rows } = await service.platform.pool.query<{ cents: number }>(
    'SELECT coalesce(sum(cents), 0)::int AS cents FROM charges WHERE org_id = $1',
    [orgId],
  );
  return rows[0]?.cents ?? 0;
}

describe('daily pricing and posting', () => {
  it('a day with 1 input token costs 1 cent', async () => {
    const customer = await newCustomer(service, { creditCents: 500 });
    await spend(customer, 1, 1);
    await rolledUp(customer.orgId, 1);
    const result = await postCharges(deps(), { orgIds: [customer.orgId] });
    expect(result.posted).toEqual([
      {
        chargeId: expect.stringMatching(/^chg_/),
        orgId: customer.orgId,
        model: 'scribe',
        day: today(),
        cents: 1,
      },
    ]);
    expect(await chargedCents(customer.orgId)).toBe(1);
    await eventually(async () =>
      service.platform.directory.balanceCents(customer.orgId) === 499 ? true : undefined,
    );
  });

  it('a day with 150,000 tokens over many requests costs 2 cents, posted once', async () => {
    const customer = await newCustomer(service, { creditCents: 500 });
    await spend(customer, 30, 5_000);
    expect(await rolledUp(customer.orgId, 30)).toEqual({ requests: 30, input_tokens: 150_000 });
    const first = await postCharges(deps(), { orgIds: [customer.orgId] });
    expect(first.posted.map((charge) => charge.cents)).toEqual([2]);
    const second = await postCharges(deps(), { orgIds: [customer.orgId] });
    expect(second.posted).toEqual([]);
    expect(await chargedCents(customer.orgId)).toBe(2);

    const summary = await service.api.inject({
      method: 'GET',
      url: '/api/billing/summary',
      headers: { authorization: `Bearer ${customer.key}` },
    });
    expect(summary.statusCode).toBe(200);
    expect(summary.json()).toEqual({
      data: {
        org_id: customer.orgId,
        balance_cents: 498,
        credit_granted_cents: 500,
        charged_cents: 2,
        charges: [
          {
            model: 'scribe',
            day: today(),
            cents: 2,
            requests: 30,
            input_tokens: 150_000,
            output_tokens: 120,
          },
        ],
      },
    });
  });

  it('posts the difference during the day and again later, and each day on its own', async () => {
    const customer = await newCustomer(service, { creditCents: 500 });
    await spend(customer, 2, 50_000);
    await rolledUp(customer.orgId, 2);
    expect((await postCharges(deps(), { orgIds: [customer.orgId] })).posted.map((c) => c.cents)).toEqual([1]);
    await spend(customer, 1, 50_000);
    await rolledUp(customer.orgId, 3);
    const later = await postCharges(deps(), { orgIds: [customer.orgId] });
    expect(later.posted.map((c) => [c.day, c.cents])).toEqual([[today(), 1]]);

    // Usage of yesterday, recorded late: its own day, priced and rounded on its own.
    const yesterday = new Date(Date.now() - 86_400_000);
    await publishUsage(service.platform.producer, [
      {
        type: 'UsageRecorded',
        eventId: randomUUID(),
        orgId: customer.orgId,
        occurredAt: yesterday,
        requestId: `req_${randomUUID()}`,
        keyId: customer.keyId,
        model: 'scribe',
        endpoint: 'previews',
        inputTokens: 10,
        outputTokens: 2,
        fallback: false,
        latencyMs: 3,
      },
    ]);
    await rolledUp(customer.orgId, 1, utcDay(yesterday.getTime()));
    const next = await postCharges(deps(), { orgIds: [customer.orgId] });
    expect(next.posted.map((c) => [c.day, c.cents])).toEqual([[utcDay(yesterday.getTime()), 1]]);
    expect((await postCharges(deps(), { orgIds: [customer.orgId] })).posted).toEqual([]);
    expect(await chargedCents(customer.orgId)).toBe(3);
  });

  it('is idempotent: a charge posted again, or by a concurrent run, is charged once', async () => {
    const customer = await newCustomer(service, { creditCents: 500 });
    await spend(customer, 1, 250_000);
    await rolledUp(customer.orgId, 1);
    const runs = await Promise.allSettled([
      postCharges(deps(), { orgIds: [customer.orgId] }),
      postCharges(deps(), { orgIds: [customer.orgId] }),
    ]);
    const refused = runs.filter((run) => run.status === 'rejected');
    for (const run of refused) expect(String(run.reason)).toMatch(/Another posting job is running/);
    expect(await chargedCents(customer.orgId)).toBe(3);

    // The same ChargePosted delivered twice: the projection and the directory count it once.
    const { rows } = await service.platform.pool.query(
      `SELECT charge_id, model, to_char(day, 'YYYY-MM-DD') AS day, cents FROM charges WHERE org_id = $1`,
      [customer.orgId],
    );
    const again: OrgEvent[] = rows.map((row) => ({
      type: 'ChargePosted',
      eventId: randomUUID(),
      orgId: customer.orgId,
      occurredAt: new Date(),
      chargeId: row.charge_id,
      model: row.model,
      day: row.day,
      cents: row.cents,
    }));
    const marker = {
      type: 'TracingEnabled',
      eventId: randomUUID(),
      orgId: customer.orgId,
      occurredAt: new Date(),
    } as const;
    await publishOrgEvents(service.platform.producer, [...again, marker]);
    await eventually(async () =>
      service.platform.directory.org(customer.orgId)?.tracingEnabled ? true : undefined,
    );
    expect(service.platform.directory.balanceCents(customer.orgId)).toBe(497);
    expect(await chargedCents(customer.orgId)).toBe(3);
  });
});

describe('credit', () => {
  it('an org charged to zero gets 402 on its next request, before the model is asked', async () => {
    const customer = await newCustomer(service, { creditCents: 1 });
    await spend(customer, 1, 1);
    await rolledUp(customer.orgId, 1);
    await postCharges(deps(), { orgIds: [customer.orgId] });
    await eventually(async () =>
      service.platform.directory.balanceCents(customer.orgId) === 0 ? true : undefined,
    );
    const before = service.model.requests.length;
    const response = await invoke(service.api, 'scribe/v1/titles', titleBody, customer.key);
    expect(response.statusCode).toBe(402);
    expect(response.json().error.code).toBe('insufficient_credit');
    expect(service.model.requests.length).toBe(before);
  });

  it('a 502 is not charged: no usage is recorded for it', async () => {
    const customer = await newCustomer(service, { creditCents: 500 });
    service.model.script(() => ({ status: 500 }));
    expect((await invoke(service.api, 'scribe/v1/titles', titleBody, customer.key)).statusCode).toBe(502);
    await spend(customer, 1, 7);
    expect(await rolledUp(customer.orgId, 1)).toEqual({ requests: 1, input_tokens: 7 });
    const logged = await eventually(async () => {
      const list = await requestList(service.api, customer.key);
      return list.body.data.length > 0 ? list.body.data : undefined;
    });
    expect(logged.map((row) => row.input_tokens)).toEqual([7]);
  });
});

describe('GET /api/billing/summary', () => {
  it('is read with any live key, and refused without one', async () => {
    const customer = await newCustomer(service, { creditCents: 250, scopes: ['traces:write'] });
    const summary = await service.api.inject({
      method: 'GET',
      url: '/api/billing/summary',
      headers: { authorization: `Bearer ${customer.key}` },
    });
    expect(summary.json()).toEqual({
      data: {
        org_id: customer.orgId,
        balance_cents: 250,
        credit_granted_cents: 250,
        charged_cents: 0,
        charges: [],
      },
    });
    const refused = await service.api.inject({ method: 'GET', url: '/api/billing/summary' });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error.code).toBe('unauthorized');
    const badRange = await service.api.inject({
      method: 'GET',
      url: '/api/billing/summary?from=yesterday',
      headers: { authorization: `Bearer ${customer.key}` },
    });
    expect(badRange.statusCode).toBe(422);
    expect(badRange.json().error.param).toBe('from');
  });
});
