import { connect } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions } from '../../../api/server-options.ts';
import { logger } from '../../../platform/logger.ts';

// Node's own refusals, before any route runs, in the API's error shape (api/server-options.ts).

const app = Fastify(serverOptions(logger));
let port: number;
beforeAll(async () => {
  app.get('/', async () => ({ ok: true }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as { port: number }).port;
});
afterAll(() => app.close());

/** Writes `raw` on a new connection and reads everything until the server closes it. */
function exchange(raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(raw));
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString();
    });
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

const bodyOf = (response: string) => JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));

describe('a request Node refuses before routing', () => {
  it('answers headers over 16 KiB with 431 headers_too_large in the API’s shape', async () => {
    const response = await exchange(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(response).toMatch(/^HTTP\/1\.1 431 /);
    expect(response).toMatch(/\r\nConnection: close\r\n/);
    expect(bodyOf(response)).toEqual({
      error: { code: 'headers_too_large', message: expect.stringMatching(/send fewer or smaller/) },
    });
  });

  it('answers bytes that are not HTTP with 400 invalid_request in the API’s shape', async () => {
    const response = await exchange('NOT HTTP AT ALL\r\n\r\n');
    expect(response).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(response).error.code).toBe('invalid_request');
  });
});
