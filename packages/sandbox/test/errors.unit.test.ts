import { describe, expect, it } from 'vitest';
import { Client } from '../src/client.js';
import { ApiError, apiErrorFrom } from '../src/errors.js';
import { recordingFetch } from './recording-fetch.js';

// `ApiError` from the API's `{ error: { code, message, param? } }` body (spec 002, "Errors").

describe('an ApiError from a refused answer', () => {
  it('carries the code, the status, the message and the param', () => {
    const body = { error: { code: 'invalid_request', message: 'Invalid `name`: send …', param: 'name' } };
    const error = apiErrorFrom(422, body);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(Error);
    expect({ ...error, name: error.name, message: error.message }).toEqual({
      name: 'ApiError',
      code: 'invalid_request',
      status: 422,
      message: 'Invalid `name`: send …',
      param: 'name',
    });
  });

  it('has no param where the API sent none', () => {
    const error = apiErrorFrom(409, {
      error: { code: 'no_desktop', message: 'The desktop is not running: start it.' },
    });
    expect([error.code, error.status, error.param]).toEqual(['no_desktop', 409, undefined]);
  });

  it.each([
    [
      'a proxy page',
      502,
      '<html>Bad gateway</html>',
      /^The API answered 502 without an error object: <html>Bad gateway/,
    ],
    ['an empty body', 500, undefined, /^The API answered 500 without an error object\. Check `baseUrl`/],
    ['another JSON shape', 404, { message: 'Not Found' }, /^The API answered 404 without an error object\./],
  ])('is `unexpected_answer` for %s, keeping the status', (_name, status, body, message) => {
    const error = apiErrorFrom(status, body);
    expect([error.code, error.status]).toEqual(['unexpected_answer', status]);
    expect(error.message).toMatch(message);
  });
});

describe('the client', () => {
  it('refuses to be made without an API key, sending nothing', () => {
    const { fetch, requests } = recordingFetch();
    const make = () => new Client({ apiKey: '', fetch });
    expect(make).toThrow(ApiError);
    expect(make).toThrow(/^Missing `apiKey`: send an org API key/);
    expect(requests).toEqual([]);
  });

  it('sends the key as a bearer to its baseUrl, without a trailing slash', async () => {
    const { fetch, requests } = recordingFetch();
    const client = new Client({ apiKey: 'osk_test', baseUrl: 'https://api.example.com/', fetch });
    expect(client.baseUrl).toBe('https://api.example.com');
    await expect(
      client.sandboxes.list({ metadata: { env: 'ci', 'team.x': 'a b' }, all: true }),
    ).rejects.toThrow(/^recorded GET/);
    expect(requests.map((request) => [request.url, request.headers.get('authorization')])).toEqual([
      [
        'https://api.example.com/api/sandboxes?metadata%5Benv%5D=ci&metadata%5Bteam.x%5D=a+b&all=true',
        'Bearer osk_test',
      ],
    ]);
  });

  it('defaults to http://127.0.0.1:8080', () => {
    expect(new Client({ apiKey: 'osk_test' }).baseUrl).toBe('http://127.0.0.1:8080');
  });
});
