import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../../platform/clickhouse.ts';
import { eventually } from '../../harness/platform.ts';
import {
  type Customer,
  emailBody,
  type InferenceService,
  invoke,
  newCustomer,
  startInferenceService,
  titleBody,
} from './service.ts';

// Idempotency-Key on title and preview requests: a retry with the same key is the same request,
// answered again without asking the model once it was answered, and billed once however many of
// its attempts reached Kafka.

let service: InferenceService;
beforeAll(async () => {
  service = await startInferenceService();
  service.model.script(() => ({ line: 'Password reset help', usage: { input: 30, output: 4 } }));
});
afterAll(() => service.stop());

const asked = () => service.model.requests.length;
const withKey = (key: string) => ({ 'idempotency-key': key });

async function billed(customer: Customer): Promise<{ requests: number; input_tokens: number } | undefined> {
  const { rows } = await service.platform.pool.query<{ requests: number; input_tokens: number }>(
    'SELECT sum(requests)::int AS requests, sum(input_tokens)::int AS input_tokens FROM usage_daily WHERE org_id = $1',
    [customer.orgId],
  );
  return rows[0]?.requests === null ? undefined : rows[0];
}

/** The answer is kept for its key after it was sent (api/inference/plugin.ts): waits for that. */
async function answerKept(customer: Customer, key: string): Promise<void> {
  await eventually(async () => {
    const kept = await service.platform.pool.query(
      'SELECT 1 FROM inference_idempotency WHERE org_id = $1 AND idempotency_key = $2 AND answer IS NOT NULL',
      [customer.orgId, key],
    );
    return kept.rowCount === 1 ? true : undefined;
  });
}

describe('Idempotency-Key', () => {
  it('answers a retry with the first answer, without asking the model again', async () => {
    const customer = await newCustomer(service);
    const key = randomUUID();
    const first = await invoke(service.api, 'scribe/v1/titles', titleBody, customer.key, withKey(key));
    expect(first.statusCode).toBe(200);
    // A retry that comes before the answer is kept asks the model again (billed once all the
    // same, as the next test shows); this one comes after.
    await answerKept(customer, key);
    const before = asked();
    const retry = await invoke(service.api, 'scribe/v1/titles', titleBody, customer.key, withKey(key));
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toEqual(first.json());
    expect(retry.headers['x-request-id']).toBe(first.headers['x-request-id']);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(asked()).toBe(before);
  });

  it('bills a request once when two of its attempts reached Kafka', async () => {
    const customer = await newCustomer(service);
    const key = randomUUID();
    const first = await invoke(service.api, 'scribe/v1/titles', titleBody, customer.key, withKey(key));
    expect(first.statusCode).toBe(200);
    // As if the first attempt's answer had not been kept: its publish timed out after Kafka wrote
    // the usage event, the caller got 503 and sends again. The retry asks the model again and
    // publishes under the same request id. (The answer is kept after it is sent: wait for it.)
    await answerKept(customer, key);
    await service.platform.pool.query(
      'UPDATE inference_idempotency SET answer = NULL WHERE org_id = $1 AND idempotency_key = $2',
      [customer.orgId, key],
    );
    const before = asked();
    const retry = await invoke(service.api, 'scribe/v1/titles', titleBody, customer.key, withKey(key));
    expect(retry.statusCode).toBe(200);
    expect(asked()).toBe(before + 1);
    expect(retry.headers['x-request-id']).toBe(first.headers['x-request-id']);
    // A third request behind the two on the org's partition: once it is billed, both attempts
    // have been seen by the projections.
    expect((await invoke(service.api, 'scribe/v1/titles', titleBody, customer.key)).statusCode).toBe(200);
    const rollup = await eventually(
      async () => ((await billed(customer))?.input_tokens === 60 ? billed(customer) : undefined),
      20_000,
      'the request after the retry billed',
    );
    expect(rollup).toEqual({ requests: 2, input_tokens: 60 });
    const logged = await eventually(async () => {
      const result = await service.platform.clickhouse.query({
        query: sql`SELECT request_id FROM requests FINAL WHERE org_id = ${customer.orgId}`.text,
        format: 'JSONEachRow',
      });
      const found = await result.json<{ request_id: string }>();
      return found.length >= 2 ? found : undefined;
    });
    expect(logged.filter((row) => row.request_id === first.headers['x-request-id'])).toHaveLength(1);
    expect(logged).toHaveLength(2);
  });

  it('refuses a key reused for another request', async () => {
    const customer = await newCustomer(service);
    const key = randomUUID();
    expect(
      (await invoke(service.api, 'scribe/v1/titles', titleBody, customer.key, withKey(key))).statusCode,
    ).toBe(200);
    const reused = await invoke(service.api, 'scribe/v1/previews', emailBody, customer.key, withKey(key));
    expect(reused.statusCode).toBe(422);
    expect(reused.json().error).toMatchObject({
      code: 'idempotency_key_reused',
      type: 'invalid_request_error',
      param: null,
    });
  });

  it.each([
    ['too long', 'k'.repeat(256)],
    ['with a space', 'two words'],
  ])('refuses a key %s, naming the header', async (_, key) => {
    const customer = await newCustomer(service);
    const refused = await invoke(service.api, 'scribe/v1/titles', titleBody, customer.key, withKey(key));
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error).toMatchObject({ code: 'invalid_request', param: 'Idempotency-Key' });
  });

  it("keeps one org's keys apart from another's", async () => {
    const [one, other] = [await newCustomer(service), await newCustomer(service)];
    const key = randomUUID();
    const first = await invoke(service.api, 'scribe/v1/titles', titleBody, one.key, withKey(key));
    const second = await invoke(service.api, 'scribe/v1/titles', titleBody, other.key, withKey(key));
    expect(second.statusCode).toBe(200);
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
  });
});
