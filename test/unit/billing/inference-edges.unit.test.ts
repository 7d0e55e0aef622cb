import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../api/errors.ts';
import { inferenceApiError, inferenceErrorFormat } from '../../../api/inference/error-format.ts';
import { decodeCursor, encodeCursor } from '../../../api/inference/requests-list.ts';
import { parseModels } from '../../../platform/config.ts';

// The pure parts of the inference surface's edge: the error body, the request list's cursor and
// the models configuration (README, Configuration: ORRERY_MODELS).

const body = (error: ApiError) => JSON.parse(String(inferenceErrorFormat.body(error, undefined as never)));

describe('the inference error format', () => {
  it.each<[ApiError, unknown]>([
    [
      inferenceApiError('invalid_request', { param: 'messages[0].content', message: 'm' }),
      { code: 'invalid_request', type: 'invalid_request_error', message: 'm', param: 'messages[0].content' },
    ],
    [
      new ApiError('invalid_request', 422, 'not JSON'),
      { code: 'invalid_request', type: 'invalid_request_error', message: 'not JSON', param: '' },
    ],
    [
      new ApiError('unauthorized', 401, 'no key'),
      { code: 'unauthorized', type: 'authentication_error', message: 'no key', param: null },
    ],
    [
      inferenceApiError('usage_unavailable'),
      { code: 'usage_unavailable', type: 'api_error', message: expect.stringMatching(/Retry/), param: null },
    ],
    [
      new ApiError('payload_too_large', 413, 'big'),
      { code: 'payload_too_large', type: 'invalid_request_error', message: 'big', param: null },
    ],
    [
      new ApiError('internal_error', 500, 'oops'),
      { code: 'internal_error', type: 'api_error', message: 'oops', param: null },
    ],
  ])('%s', (error, expected) => {
    expect(body(error)).toEqual({ error: expected });
  });

  it('takes status and default message from the spec table', () => {
    const error = inferenceApiError('insufficient_credit');
    expect([error.status, error.message]).toEqual([402, expect.stringMatching(/credit is used up/)]);
  });
});

describe('the request list cursor', () => {
  it('round-trips a position', () => {
    const position = { atMs: 1_763_805_600_123, requestId: 'req_abc' };
    expect(decodeCursor(encodeCursor(position))).toEqual(position);
  });

  it.each([
    'not-a-cursor',
    Buffer.from('[1.5,"x"]').toString('base64url'),
    Buffer.from('{}').toString('base64url'),
  ])('refuses %j with param cursor', (cursor) => {
    expect(() => decodeCursor(cursor)).toThrow(expect.objectContaining({ status: 422, param: 'cursor' }));
  });
});

describe('ORRERY_MODELS', () => {
  it('reads models with defaults; a model without baseUrl is known but not deployed', () => {
    expect(
      parseModels(
        '[{"name":"scribe-1","writes":["titles","previews"],"baseUrl":"http://127.0.0.1:8000/v1"},{"name":"later","writes":["titles"],"answerPrefix":true}]',
      ),
    ).toEqual([
      {
        name: 'scribe-1',
        writes: ['titles', 'previews'],
        baseUrl: 'http://127.0.0.1:8000/v1',
        timeoutMs: 10_000,
        retries: 1,
        maxTokens: 64,
        answerPrefix: false,
      },
      { name: 'later', writes: ['titles'], timeoutMs: 10_000, retries: 1, maxTokens: 64, answerPrefix: true },
    ]);
    expect(parseModels('[]')).toEqual([]);
    expect(
      parseModels('[{"name":"m","writes":["titles"],"extraBody":{"repetition_penalty":1.1,"top_k":[1]}}]')[0]
        ?.extraBody,
    ).toEqual({ repetition_penalty: 1.1, top_k: [1] });
  });

  it.each([
    ['not JSON', '[{', /JSON array/],
    ['a missing file', '/nonexistent/models.json', /JSON array/],
    ['an unknown kind', '[{"name":"m","writes":["summaries"]}]', /writes/],
    ['an unknown field', '[{"name":"m","writes":["titles"],"timeout":5}]', /timeout/],
    ['a repeated name', '[{"name":"m","writes":["titles"]},{"name":"m","writes":["previews"]}]', /repeat/],
    ['a name with a slash', '[{"name":"a/b","writes":["titles"]}]', /name/],
    [
      'an answer prefix that is not true or false',
      '[{"name":"m","writes":["titles"],"answerPrefix":"yes"}]',
      /answerPrefix/,
    ],
    [
      'extraBody setting a field the service sets',
      '[{"name":"m","writes":["titles"],"extraBody":{"temperature":0.7}}]',
      /extraBody: leave out model, messages, max_tokens, temperature/,
    ],
    ['extraBody that is not an object', '[{"name":"m","writes":["titles"],"extraBody":[1]}]', /extraBody/],
  ])('refuses %s', (_, text, message) => {
    expect(() => parseModels(text)).toThrow(message);
  });
});
