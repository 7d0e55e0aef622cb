import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { slowBodiesPlugin } from '../../../api/slow-bodies.ts';

// api/slow-bodies.ts watches the bodies arriving on connections; a request injected in process
// (Fastify's `inject`, as the tests and the admin tools call the API) has none, and is left alone.
describe('the slow bodies watch', () => {
  it('leaves an injected request alone while its handler takes longer than the body timeout', async () => {
    const app = Fastify();
    await app.register(slowBodiesPlugin, { idleMs: 100 });
    const slowly = async () => new Promise((resolve) => setTimeout(resolve, 400)); // several looks
    app.get('/slow', async () => {
      await slowly();
      return { got: 'nothing' };
    });
    app.post('/slow', async (request) => {
      await slowly();
      return { got: request.body };
    });
    try {
      const read = await app.inject({ method: 'GET', url: '/slow' });
      expect(read.statusCode).toBe(200);
      const written = await app.inject({ method: 'POST', url: '/slow', payload: { a: 1 } });
      expect(written.statusCode).toBe(200);
      expect(written.json()).toEqual({ got: { a: 1 } });
    } finally {
      await app.close();
    }
  });
});
