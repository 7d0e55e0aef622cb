import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../../platform/config.ts';
import { createEventProducer } from '../../../producers/producer.ts';
import { refusedBaseUrl } from '../../harness/model-server.ts';
import {
  type Customer,
  emailBody,
  type InferenceService,
  invoke,
  newCustomer,
  requestList,
  startInferenceService,
  titleBody,
} from './service.ts';

// Every status of the spec's Errors table (spec 000, Errors), in its body shape
// `{ error: { code, type, message, param } }`, through HTTP on the real stack.

let service: InferenceService;
let customer: Customer;
beforeAll(async () => {
  service = await startInferenceService();
  customer = await newCustomer(service);
});
afterAll(() => service.stop());

const asked = () => service.model.requests.length;

function expectError(
  response: { statusCode: number; json(): unknown },
  status: number,
  code: string,
  type: string,
  param: string | null = null,
) {
  expect(response.statusCode).toBe(status);
  expect(response.json()).toEqual({
    error: { code, type, message: expect.stringMatching(/\S/), param },
  });
}

describe('authentication (401, 403) through the shared auth hook', () => {
  it('answers 401 unauthorized without a key and with an unknown key', async () => {
    expectError(
      await invoke(service.api, 'scribe/v1/titles', titleBody),
      401,
      'unauthorized',
      'authentication_error',
    );
    expectError(
      await invoke(service.api, 'scribe/v1/titles', titleBody, 'orr_unknown'),
      401,
      'unauthorized',
      'authentication_error',
    );
  });

  it('answers 403 insufficient_scope to a key without inference:invoke, on every route', async () => {
    const tracer = await newCustomer(service, { scopes: ['traces:write'] });
    for (const path of ['scribe/v1/titles', 'scribe/v1/previews']) {
      const response = await invoke(service.api, path, titleBody, tracer.key);
      expectError(response, 403, 'insufficient_scope', 'permission_error');
      expect(response.json().error.message).toMatch(/inference:invoke/);
    }
    const list = await requestList(service.api, tracer.key);
    expect(list.status).toBe(403);
  });
});

describe('404 model_not_found and 503 not_configured', () => {
  it('answers 404 for a model nobody configured, and for a model that does not write this kind', async () => {
    const before = asked();
    expectError(
      await invoke(service.api, 'no-such-model/v1/titles', titleBody, customer.key),
      404,
      'model_not_found',
      'not_found_error',
    );
    expectError(
      await invoke(service.api, 'titler/v1/previews', emailBody, customer.key),
      404,
      'model_not_found',
      'not_found_error',
    );
    expect(asked()).toBe(before);
    expect((await invoke(service.api, 'titler/v1/titles', titleBody, customer.key)).statusCode).toBe(200);
  });

  it('answers 503 not_configured for a known model that is not deployed', async () => {
    expectError(
      await invoke(service.api, 'dormant/v1/previews', emailBody, customer.key),
      503,
      'not_configured',
      'api_error',
    );
  });
});

describe('422 invalid_request names the offending field in `param`', () => {
  it.each<[string, string, unknown, string]>([
    // (%s below is the endpoint; each row: what is wrong, endpoint, body, param)
    ['a body that is not JSON', 'titles', '{"messages": [', ''],
    ['a body that is not an object', 'titles', [1, 2], ''],
    ['a missing field', 'titles', {}, 'messages'],
    ['a missing message content', 'titles', { messages: [{ role: 'user' }] }, 'messages[0].content'],
    ['a message with neither role nor name', 'titles', { messages: [{ content: 'hi' }] }, 'messages[0].role'],
    [
      'a role of the wrong value',
      'titles',
      { messages: [{ role: 'bot', content: 'hi' }] },
      'messages[0].role',
    ],
    ['an unknown field', 'titles', { ...titleBody, temperature: 1 }, 'temperature'],
    ['an unknown field named oddly', 'titles', { ...titleBody, 'bad key': 1 }, '["bad key"]'],
    ['a missing kind', 'previews', { item: {} }, 'kind'],
    ['a kind of the wrong value', 'previews', { kind: 'letter', item: {} }, 'kind'],
    ['a missing tool', 'previews', { kind: 'agent_action', item: {} }, 'item.tool'],
    ['an unknown item field', 'previews', { kind: 'doc', item: { foo: 'x' } }, 'item.foo'],
    [
      'a thread message name of the wrong type',
      'previews',
      {
        kind: 'message',
        item: {
          thread: [
            { role: 'user', content: 'a' },
            { name: 7, content: 'b' },
          ],
        },
      },
      'item.thread[1].name',
    ],
    [
      'arguments of the wrong type',
      'previews',
      { kind: 'agent_action', item: { tool: 't', arguments: 3 } },
      'item.arguments',
    ],
    ['a language other than English', 'previews', { ...emailBody, language: 'French' }, 'language'],
  ])('%s (%s) → param %j', async (_, endpoint, body, param) => {
    const before = asked();
    const response = await invoke(service.api, `scribe/v1/${endpoint}`, body, customer.key);
    expectError(response, 422, 'invalid_request', 'invalid_request_error', param);
    expect(asked()).toBe(before);
  });

  it('refuses a bad cursor of the request list with param `cursor`', async () => {
    const list = await requestList(service.api, customer.key, { cursor: 'not-a-cursor' });
    expect(list.status).toBe(422);
    expect(list.body).toMatchObject({ error: { code: 'invalid_request', param: 'cursor' } });
    const limit = await requestList(service.api, customer.key, { limit: '0' });
    expect(limit.body).toMatchObject({ error: { code: 'invalid_request', param: 'limit' } });
  });
});

describe('402 insufficient_credit', () => {
  it('answers 402 to an org without credit, before the model is asked', async () => {
    const broke = await newCustomer(service, { creditCents: 0 });
    const before = asked();
    expectError(
      await invoke(service.api, 'scribe/v1/titles', titleBody, broke.key),
      402,
      'insufficient_credit',
      'billing_error',
    );
    expect(asked()).toBe(before);
  });
});

describe('502 upstream_unavailable: the model did not answer', () => {
  it.each<[string, Parameters<InferenceService['model']['script']>[0], number]>([
    ['too slow (timeout)', () => ({ line: 'Too late to matter', delayMs: 6000 }), 1],
    ['a 5xx on every attempt', () => ({ status: 500 }), 2],
    ['a 4xx', () => ({ status: 400 }), 1],
    ['garbage JSON', () => ({ raw: '{"choices": [' }), 1],
    ['JSON that is not a chat completion', () => ({ raw: '{"choices": []}' }), 1],
    ['a completion without usage', () => ({ raw: '{"choices":[{"message":{"content":"Hi there"}}]}' }), 1],
    ['a reset connection, retried', () => ({ reset: true }), 2],
  ])('%s', async (_, script, attempts) => {
    service.model.script(script);
    const before = asked();
    const started = performance.now();
    const response = await invoke(service.api, 'scribe/v1/titles', titleBody, customer.key);
    expectError(response, 502, 'upstream_unavailable', 'api_error');
    expect(asked() - before).toBe(attempts);
    // Answered before the slowest scripted model would have (6 s): the timeout cut it short. A
    // wide margin, not a speed check: these machines are shared.
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('answers 502 when the model is down (connection refused)', async () => {
    expectError(
      await invoke(service.api, 'unreachable/v1/previews', emailBody, customer.key),
      502,
      'upstream_unavailable',
      'api_error',
    );
  });

  it('retries one 5xx within the budget and answers', async () => {
    service.model.script((_, index) => (index % 2 === 0 ? { status: 503 } : { line: 'Password reset help' }));
    const before = asked();
    const response = await invoke(service.api, 'scribe/v1/titles', titleBody, customer.key);
    expect(response.statusCode).toBe(200);
    expect(response.json().text).toBe('Password reset help');
    expect(asked() - before).toBe(2);
  });
});

describe('503 usage_unavailable: an answer is never served unbilled', () => {
  it('answers 503 with Retry-After when Kafka does not acknowledge the usage event', async () => {
    service.model.script(() => ({ line: 'Password reset help' }));
    // A real producer whose broker does not answer: nothing is ever acknowledged.
    const producer = await createEventProducer('orrery-test-no-broker', {
      settings: {
        ...config().kafka,
        brokers: [new URL(await refusedBaseUrl()).host],
        timeouts: { requestMs: 500, deliveryMs: 1000, callerMs: 1000 },
      },
    });
    try {
      const api = await service.apiWith(producer);
      const response = await invoke(api, 'scribe/v1/titles', titleBody, customer.key);
      expectError(response, 503, 'usage_unavailable', 'api_error');
      expect(response.headers['retry-after']).toBe('5');
    } finally {
      await producer.disconnect();
    }
  });
});
