import { request as httpRequest } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonErrorBody } from '../../../api/errors.ts';
import { clientErrorHandler, frameworkErrors, notFoundHandler } from '../../../api/http-errors.ts';
import { inferenceErrorBody } from '../../../api/inference/error-format.ts';
import { freePort } from '../../harness/ports.ts';

// What the server answers before any route runs (api/http-errors.ts), on a real socket: in the
// shape of the surface the path belongs to, the one /openapi.json documents for its routes.

let app: FastifyInstance;
let port: number;
beforeAll(async () => {
  app = Fastify({ frameworkErrors, clientErrorHandler });
  app.setNotFoundHandler(notFoundHandler);
  for (const url of ['/api/sandboxes/:id', '/api/inference/:model/v1/titles', '/api/otlp/v1/:x'])
    app.get(url, async () => ({ ok: true }));
  await app.listen({ host: '127.0.0.1', port: await freePort() });
  port = (app.server.address() as { port: number }).port;
});
afterAll(() => app.close());

function get(path: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode!, type: res.headers['content-type'] ?? '', body }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

const long = 'a'.repeat(101);
const huge = 'a'.repeat(17 * 1024);

describe.each([
  ['a JSON surface', '/api/sandboxes', jsonErrorBody],
  ['the title and preview surface', '/api/inference', inferenceErrorBody],
])('on %s', (_name, prefix, body) => {
  const suffix = prefix === '/api/inference' ? '/v1/titles' : '';
  it.each([
    ['a path parameter over 100 characters', `${prefix}/${long}${suffix}`, 414, 'uri_too_long'],
    ['a path that is not percent-decodable', `${prefix}/%E0%A4%A${suffix}`, 422, 'invalid_request'],
    ['a path no route takes', `${prefix}/x/y/z/w`, 404, 'not_found'],
    ['a request line over 16 KiB', `${prefix}/x?q=${huge}`, 431, 'headers_too_large'],
  ])('answers %s with its error body', async (_what, path, status, code) => {
    const answer = await get(path);
    expect([answer.status, answer.type]).toEqual([status, 'application/json; charset=utf-8']);
    const parsed = body.parse(JSON.parse(answer.body));
    expect(parsed.error.code).toBe(code);
  });
});

it('answers the OTLP surface with a google.rpc.Status in JSON', async () => {
  const answer = await get(`/api/otlp/v1/${long}`);
  expect(answer.status).toBe(414);
  expect(JSON.parse(answer.body)).toEqual({ code: 3, message: expect.stringMatching(/^uri_too_long: /) });
});
