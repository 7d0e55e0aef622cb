import { describe, expect, it } from 'vitest';
import { apiUrlOf } from '../src/access.ts';
import { refusalOf } from '../src/api-client.ts';
import { UsageFailure } from '../src/failures.ts';

describe('apiUrlOf', () => {
  it('keeps an http(s) URL without its trailing slashes', () => {
    expect(apiUrlOf('http://127.0.0.1:8080/', '--api-url')).toBe('http://127.0.0.1:8080');
    expect(apiUrlOf('https://orrery.example.com/base//', '--api-url')).toBe(
      'https://orrery.example.com/base',
    );
  });

  it.each(['not a url', 'ftp://host', 'http://host/?q=1'])(
    'refuses %s as a usage error naming where it came from',
    (text) => {
      const refusal = (() => {
        try {
          return apiUrlOf(text, 'ORRERY_API_URL');
        } catch (error) {
          return error;
        }
      })();
      expect(refusal).toBeInstanceOf(UsageFailure);
      expect(refusal).toMatchObject({ exitCode: 2, message: expect.stringContaining('ORRERY_API_URL') });
    },
  );
});

describe('refusalOf', () => {
  const answer = (status: number, body: unknown) => ({ status, body, text: JSON.stringify(body) });

  it('reads the JSON surfaces’ error object, param included', () => {
    expect(
      refusalOf(answer(422, { error: { code: 'invalid_request', message: 'Bad size', param: 'size' } })),
    ).toMatchObject({
      status: 422,
      code: 'invalid_request',
      message: 'Bad size',
      param: 'size',
    });
  });

  it('reads RFC 6749’s error and description', () => {
    expect(refusalOf(answer(400, { error: 'access_denied', error_description: 'Denied' }))).toMatchObject({
      code: 'access_denied',
      message: 'Denied',
    });
  });

  it('says what came instead of an error object', () => {
    const refusal = refusalOf({ status: 502, body: undefined, text: '<html>Bad gateway</html>' });
    expect(refusal).toMatchObject({ code: 'unexpected_answer' });
    expect(refusal.message).toContain('502');
    expect(refusal.message).toContain('Bad gateway');
  });
});
