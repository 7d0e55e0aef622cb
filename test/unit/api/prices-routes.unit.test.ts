import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrgDirectory, type Principal } from '../../../api/auth/org-directory.ts';
import { errorHandler, jsonErrorFormat } from '../../../api/errors.ts';
import { pricesPlugin } from '../../../api/prices/plugin.ts';
import { validateRequestPart } from '../../../api/request-validation.ts';
import { scopes } from '../../../domain/orgs/events.ts';
import type { PgPool } from '../../../platform/postgres.ts';
import { encodeWire, wireObjectOptions } from '../../../platform/registry.ts';
import type { EventProducer } from '../../../producers/producer.ts';
import { valueType } from '../../../schemas/events/index.ts';
import { orgEventFromWire } from '../../../schemas/events/org-mapping.ts';

// The price routes (api/prices/plugin.ts) on a bare server, without a stack: who may call them,
// what a request must hold (each refusal a 422 naming its field), and what they answer. The auth
// hook is a stand-in that makes the principal a header names; the org stream is a producer that
// hands each event, through protobuf, straight to the directory, as the follower would. The real
// auth, Kafka and a second process are test/int/prices/prices.int.test.ts's.

const orgId = 'org_prices';
const at = new Date('2026-12-08T10:00:00Z');
const directory = new OrgDirectory();
directory.apply({ eventId: 'created', orgId, occurredAt: at, type: 'OrgCreated', name: 'Acme' });
directory.apply({
  eventId: 'member',
  orgId,
  occurredAt: at,
  type: 'MemberAdded',
  personId: 'p_member',
  role: 'member',
});

const stream: Pick<EventProducer, 'send'> = {
  async send(name, records) {
    const type = valueType(name);
    for (const record of records) {
      const wire = type.toObject(type.decode(encodeWire(type, record.value as object)), wireObjectOptions);
      const event = orgEventFromWire(wire);
      if (event) directory.apply(event);
    }
  },
};

const principals: Record<string, Principal> = {
  key: { kind: 'key', orgId, keyId: 'key_1', scopes: [] },
  member: { kind: 'member', orgId, personId: 'p_member', scopes },
};

let app: FastifyInstance;
beforeAll(async () => {
  app = Fastify();
  app.setValidatorCompiler(validateRequestPart);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler(jsonErrorFormat));
  app.decorateRequest('principal', undefined);
  app.decorate('requireKeyOrSession', () => async (request: FastifyRequest) => {
    request.principal = principals[String(request.headers['x-as'])];
    if (!request.principal) throw Object.assign(new Error('no principal'), { statusCode: 401 });
  });
  await app.register(pricesPlugin, {
    prefix: '/api',
    directory,
    producer: stream as EventProducer,
    pool: {} as PgPool,
    now: () => at,
  });
  await app.ready();
});
afterAll(() => app.close());

const call = (method: 'GET' | 'PUT' | 'DELETE', url: string, as = 'member', body?: unknown) =>
  app.inject({
    method,
    url,
    headers: { 'x-as': as },
    ...(body === undefined ? {} : { payload: body as object }),
  });

describe('PUT /api/prices/{model}', () => {
  it('sets the price and answers it as the org row, once the directory has it', async () => {
    const answer = await call('PUT', '/api/prices/GPT-4o', 'member', {
      input: 2.5,
      output: 10,
      cached_input: 1.25,
    });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json()).toEqual({
      data: {
        model: 'GPT-4o',
        input: 2.5,
        output: 10,
        cached_input: 1.25,
        reasoning: null,
        source: 'org',
        updated_at: at.toISOString(),
      },
    });
    expect(directory.prices(orgId).map((price) => price.model)).toContain('GPT-4o');
  });

  it('takes a model with slashes, sent as they are or as %2F, and of 200 characters', async () => {
    expect(
      (await call('PUT', '/api/prices/openai/gpt-4o-mini', 'member', { input: 0.15, output: 0.6 })).json()
        .data.model,
    ).toBe('openai/gpt-4o-mini');
    expect(
      (
        await call('PUT', '/api/prices/accounts%2Ffireworks%2Fmodels%2Fllama', 'member', {
          input: 0.9,
          output: 0.9,
        })
      ).json().data.model,
    ).toBe('accounts/fireworks/models/llama');
    const long = `publishers/${'m'.repeat(189)}`;
    expect((await call('PUT', `/api/prices/${long}`, 'member', { input: 1, output: 1 })).statusCode).toBe(
      200,
    );
  });

  it.each<[string, string, unknown, string, RegExp]>([
    ['a negative price', 'm', { input: -1, output: 1 }, 'input', /from 0 to 10000/],
    [
      'a price that is not a number',
      'm',
      { input: 1, output: '10' },
      'output',
      /send a number of USD per million tokens/,
    ],
    ['a null price', 'm', { input: 1, output: 1, reasoning: null }, 'reasoning', /send a number/],
    ['a price left out', 'm', { input: 1 }, 'output', /send a number/],
    [
      'a price above the ceiling',
      'm',
      { input: 1, output: 1, cached_input: 10_001 },
      'cached_input',
      /to 10000/,
    ],
    [
      'a key that is not a token kind',
      'm',
      { input: 1, output: 1, cache_input: 1 },
      'cache_input',
      /not a kind of token: send only `input`, `output`, `cached_input`, `reasoning`/,
    ],
    ['a model of 201 characters', 'm'.repeat(201), { input: 1, output: 1 }, 'model', /1 to 200 characters/],
    [
      'a model with a control character',
      'gpt%0A4o',
      { input: 1, output: 1 },
      'model',
      /without control characters/,
    ],
    ['no model', '', { input: 1, output: 1 }, 'model', /1 to 200 characters/],
  ])('refuses %s with 422 naming the field', async (_, model, body, param, message) => {
    const answer = await call('PUT', `/api/prices/${model}`, 'member', body);
    expect(answer.statusCode, answer.body).toBe(422);
    expect(answer.json().error).toEqual({
      code: 'invalid_request',
      param,
      message: expect.stringMatching(message),
    });
  });

  it('refuses a body that is not an object', async () => {
    const answer = await call('PUT', '/api/prices/m', 'member', [1, 2]);
    expect(answer.statusCode).toBe(422);
    expect(answer.json().error.message).toMatch(/send a JSON object of USD per million tokens/);
  });

  it('refuses an API key: prices are changed by members with a session', async () => {
    const answer = await call('PUT', '/api/prices/m', 'key', { input: 1, output: 1 });
    expect(answer.statusCode).toBe(403);
    expect(answer.json().error.code).toBe('session_required');
    expect(directory.prices(orgId).some((price) => price.model === 'm')).toBe(false);
  });
});

describe('GET /api/prices', () => {
  it("answers the org's own prices to a key as to a member, each model once", async () => {
    await call('PUT', '/api/prices/gpt-4o', 'member', { input: 2, output: 8, reasoning: 8 });
    for (const as of ['key', 'member']) {
      const answer = await call('GET', '/api/prices', as);
      expect(answer.statusCode, answer.body).toBe(200);
      const own = answer.json().data.filter((row: { source: string }) => row.source === 'org');
      expect(own.filter((row: { model: string }) => row.model.toLowerCase() === 'gpt-4o')).toEqual([
        {
          model: 'gpt-4o',
          input: 2,
          output: 8,
          cached_input: null,
          reasoning: 8,
          source: 'org',
          updated_at: at.toISOString(),
        },
      ]);
    }
  });
});

describe('DELETE /api/prices/{model}', () => {
  it('removes the price in any case (204), then finds none (404)', async () => {
    await call('PUT', '/api/prices/claude-sonnet-4', 'member', { input: 3, output: 15 });
    const removed = await call('DELETE', '/api/prices/Claude-Sonnet-4');
    expect(removed.statusCode, removed.body).toBe(204);
    expect(directory.prices(orgId).some((price) => price.model === 'claude-sonnet-4')).toBe(false);
    const again = await call('DELETE', '/api/prices/claude-sonnet-4');
    expect(again.statusCode).toBe(404);
    expect(again.json().error).toMatchObject({
      code: 'price_not_found',
      message: expect.stringContaining('GET /api/prices'),
    });
  });

  it('refuses an API key, and a model that is not one with 422', async () => {
    expect((await call('DELETE', '/api/prices/gpt-4o', 'key')).statusCode).toBe(403);
    const invalid = await call('DELETE', `/api/prices/${'m'.repeat(201)}`);
    expect(invalid.statusCode).toBe(422);
    expect(invalid.json().error.param).toBe('model');
  });
});
