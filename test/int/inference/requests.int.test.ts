import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../../api/admin/commands.ts';
import { hashApiKey } from '../../../api/auth/api-keys.ts';
import { centsPerMillionInputTokens } from '../../../domain/billing/price.ts';
import { eventually } from '../../harness/platform.ts';
import {
  type Customer,
  emailBody,
  type InferenceService,
  invoke,
  type LoggedRequest,
  newCustomer,
  requestById,
  requestList,
  startInferenceService,
  titleBody,
} from './service.ts';

// GET /api/inference/requests: the Endpoints > Requests list (spec 000, What the service does),
// read from the request log in ClickHouse: newest first, each with the key that made it (and no
// person: a Playground request's person is test/int/people/members.int.test.ts's) and the model's time; filtered by time, model, key and endpoint; paged by cursor. One request by its
// id (the dashboard opens a row), with its cost; 404 for an id the org does not hold.

let service: InferenceService;
let customer: Customer;
let second: { key: string; keyId: string };
let all: LoggedRequest[];
beforeAll(async () => {
  service = await startInferenceService();
  customer = await newCustomer(service, { name: 'Request List' });
  second = await createApiKey(service.platform.admin, customer.orgId, ['inference:invoke'], 'second key');
  await eventually(async () => service.platform.directory.principal(hashApiKey(second.key)));
  service.model.script((_, index) => ({
    line: 'Password reset help',
    usage: { input: 10 + index, output: 2 },
  }));
  const made = [
    ['scribe/v1/titles', titleBody, customer.key],
    ['scribe/v1/titles', titleBody, customer.key],
    ['scribe/v1/previews', emailBody, second.key],
    ['titler/v1/titles', titleBody, customer.key],
    ['scribe/v1/previews', emailBody, second.key],
    ['scribe/v1/titles', titleBody, customer.key],
  ] as const;
  for (const [path, body, key] of made)
    expect((await invoke(service.api, path, body, key)).statusCode).toBe(200);
  all = await eventually(async () => {
    const { body } = await requestList(service.api, customer.key);
    return body.data.length === made.length ? body.data : undefined;
  }, 20_000);
});
afterAll(() => service.stop());

const ids = (rows: LoggedRequest[]) => rows.map((row) => row.id);

describe('the request list', () => {
  it('lists newest first, each with its key, no person, and the model time', () => {
    const order = [...all].sort(
      (a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id),
    );
    expect(ids(all)).toEqual(ids(order));
    expect(all.filter((row) => row.key?.id === second.keyId).map((row) => row.key?.name)).toEqual([
      'second key',
      'second key',
    ]);
    for (const row of all) expect(row.person).toBeNull();
    for (const row of all) expect(row.latency_ms).toBeGreaterThan(0);
  });

  // Queries are functions: the second key exists only once the file's setup has run.
  it.each<[string, () => Record<string, string>, (row: LoggedRequest) => boolean]>([
    ['model', () => ({ model: 'titler' }), (row) => row.model === 'titler'],
    ['endpoint', () => ({ endpoint: 'previews' }), (row) => row.endpoint === 'previews'],
    ['key', () => ({ key_id: second.keyId }), (row) => row.key?.id === second.keyId],
    [
      'model and endpoint',
      () => ({ model: 'scribe', endpoint: 'titles' }),
      (row) => row.model === 'scribe' && row.endpoint === 'titles',
    ],
  ])('filters by %s', async (_, query, keep) => {
    const expected = all.filter(keep);
    expect(expected.length).toBeGreaterThan(0);
    const { status, body } = await requestList(service.api, customer.key, query());
    expect(status).toBe(200);
    expect(ids(body.data)).toEqual(ids(expected));
  });

  it('filters by time: from is inclusive, to exclusive', async () => {
    const pivot = all[2]!.created_at;
    const from = await requestList(service.api, customer.key, { from: pivot });
    const to = await requestList(service.api, customer.key, { to: pivot });
    expect(ids(from.body.data)).toEqual(ids(all.filter((row) => row.created_at >= pivot)));
    expect(ids(to.body.data)).toEqual(ids(all.filter((row) => row.created_at < pivot)));
  });

  it('pages by cursor without repeating or skipping a request', async () => {
    const pages: LoggedRequest[][] = [];
    let cursor: string | null = null;
    do {
      const { body }: { body: { data: LoggedRequest[]; next_cursor: string | null } } = await requestList(
        service.api,
        customer.key,
        { limit: '4', ...(cursor ? { cursor } : {}) },
      );
      pages.push(body.data);
      cursor = body.next_cursor;
    } while (cursor !== null);
    expect(pages.map((page) => page.length)).toEqual([4, 2]);
    expect(ids(pages.flat())).toEqual(ids(all));
  });

  it("shows only the key's org", async () => {
    const stranger = await newCustomer(service, { name: 'Stranger' });
    expect((await requestList(service.api, stranger.key)).body).toEqual({ data: [], next_cursor: null });
  });
});

describe('one request', () => {
  it('answers a request of the list by its id, with its key and its cost before the day rounds it', async () => {
    const listed = all.find((row) => row.key?.id === second.keyId)!;
    const { status, body } = await requestById(service.api, customer.key, listed.id);
    expect(status).toBe(200);
    expect(body).toEqual({
      ...listed,
      cost_cents: (listed.input_tokens * Number(centsPerMillionInputTokens)) / 1_000_000,
    });
    expect(body.key?.name).toBe('second key');
    expect(body.person).toBeNull();
  });

  it("is 404 request_not_found for an id the log does not hold and for another org's request", async () => {
    const stranger = await newCustomer(service, { name: 'Stranger to one request' });
    for (const [key, id] of [
      [customer.key, 'req_none'],
      [stranger.key, all[0]!.id],
    ] as const) {
      const { status, body } = await requestById(service.api, key, id);
      expect(status).toBe(404);
      expect(body).toEqual({
        error: {
          code: 'request_not_found',
          type: 'not_found_error',
          message: expect.stringContaining('no request with this id'),
          param: null,
        },
      });
    }
  });
});
