import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApi } from '../../../api/app.ts';
import { loginAttemptLimits } from '../../../domain/people/credentials.ts';
import { logger } from '../../../platform/logger.ts';
import { createPgPool, type PgPool } from '../../../platform/postgres.ts';
import { countAttempt, deleteEndedWindows } from '../../../stores/rate-limits.ts';
import { startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { anAddress, password, signUp, uniqueEmail } from './given.ts';

// The login limits held across API replicas (issue 47, item 6): two APIs in this process, each
// with a pool of its own as a replica has, over the one Postgres that counts the attempts
// (stores/rate-limits.ts). Attempts go to both in turn, as a load balancer sends them; the limit
// is reached on the sum, and whichever replica answers next refuses. Each test sends from an
// address of its own (given.ts, anAddress).

let platform: TestPlatform;
let secondPool: PgPool;
let replicas: FastifyInstance[];
beforeAll(async () => {
  platform = await startTestPlatform();
  secondPool = createPgPool(2);
  const second = await buildApi({
    logger,
    directory: platform.directory,
    producer: platform.producer,
    pool: secondPool,
    ready: () => true,
  });
  await second.ready();
  replicas = [platform.api, second];
});
afterAll(async () => {
  await replicas[1]?.close();
  await secondPool?.end();
  await platform.stop();
});

const login = (
  api: FastifyInstance,
  email: string,
  secret: string,
  from: string,
  headers: Record<string, string> = {},
) =>
  api.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password: secret },
    remoteAddress: from,
    headers,
  });

const replicaFor = (attempt: number) => replicas[attempt % replicas.length]!;

describe('login limits across replicas', () => {
  it("counts one account's attempts on every replica: the 11th is refused with Retry-After, whichever answers", async () => {
    const person = await signUp(platform.api);
    const from = anAddress();
    const { max, windowMs } = loginAttemptLimits.perAccount;
    for (let attempt = 0; attempt < max; attempt += 1) {
      const answer = await login(replicaFor(attempt), person.email, 'a wrong password', from);
      expect(answer.statusCode, `attempt ${attempt + 1}: ${answer.body}`).toBe(401);
    }
    for (const replica of replicas) {
      // The right password too: past the limit nothing is tried.
      const refused = await login(replica, person.email, password, from);
      expect(refused.statusCode, refused.body).toBe(429);
      expect(refused.json().error.code).toBe('too_many_attempts');
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(windowMs / 1000);
    }
    const counted = await platform.pool.query('SELECT count FROM rate_limits WHERE key = $1', [
      `login-account:${person.email}`,
    ]);
    expect(counted.rows).toEqual([{ count: max + replicas.length }]);
  });

  it("counts an address's attempts on every replica, whatever X-Forwarded-For the client forges", async () => {
    const from = anAddress();
    const { max } = loginAttemptLimits.perAddress;
    // A new account each time, so only the address's limit is reached; no proxy is trusted, so a
    // forged header names no other address to count against.
    const attempt = (replica: FastifyInstance) =>
      login(replica, uniqueEmail('nobody'), password, from, { 'x-forwarded-for': anAddress() });
    for (let made = 0; made < max; made += 1) {
      const answer = await attempt(replicaFor(made));
      expect(answer.statusCode, `attempt ${made + 1}: ${answer.body}`).toBe(401);
    }
    for (const replica of replicas) {
      const refused = await attempt(replica);
      expect(refused.statusCode, refused.body).toBe(429);
      expect(refused.json().error.code).toBe('too_many_attempts');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }
  });

  it('refuses with 503 what it cannot count, on a replica whose Postgres is away: never tried, never a 500', async () => {
    const deadPool = createPgPool(1, 'postgres://orrery:orrery@127.0.0.1:1/orrery');
    const away = await buildApi({
      logger,
      directory: platform.directory,
      producer: platform.producer,
      pool: deadPool,
      ready: () => true,
    });
    try {
      const refused = await login(away, uniqueEmail('ada'), password, anAddress());
      expect(refused.statusCode, refused.body).toBe(503);
      expect(refused.json().error).toMatchObject({
        code: 'unavailable',
        message: expect.stringContaining('Attempts cannot be counted'),
      });
      expect(refused.headers['retry-after']).toBe('5');
      // The command-line login's limit the same way, in RFC 6749's shape.
      const code = await away.inject({
        method: 'POST',
        url: '/api/auth/device/code',
        payload: { client_id: 'orrery-cli' },
        remoteAddress: anAddress(),
      });
      expect(code.statusCode, code.body).toBe(503);
      expect(code.json()).toMatchObject({ error: 'unavailable' });
    } finally {
      await away.close();
      await deadPool.end();
    }
  });
});

describe('attempt windows in Postgres', () => {
  const aKey = () => `test-window:${randomUUID()}`;

  it('counts within the window, then starts a new one once it has ended', async () => {
    const key = aKey();
    const first = await countAttempt(platform.pool, key, { windowMs: 1_000 });
    expect(first.count).toBe(1);
    expect(first.msLeft).toBeGreaterThan(0);
    expect(first.msLeft).toBeLessThanOrEqual(1_000);
    const second = await countAttempt(platform.pool, key, { windowMs: 1_000 });
    expect(second.count).toBe(2);
    expect(second.msLeft).toBeLessThanOrEqual(first.msLeft);
    await new Promise((resolve) => setTimeout(resolve, first.msLeft + 50));
    expect((await countAttempt(platform.pool, key, { windowMs: 1_000 })).count).toBe(1);
  });

  it('starts the window afresh on each attempt past the count, when asked to (continueExceeding)', async () => {
    const key = aKey();
    const window = { windowMs: 60_000, restartPast: 1 };
    await countAttempt(platform.pool, key, window);
    await platform.pool.query(
      "UPDATE rate_limits SET window_ends_at = now() + interval '5 seconds' WHERE key = $1",
      [key],
    );
    const past = await countAttempt(platform.pool, key, window);
    expect(past.count).toBe(2);
    expect(past.msLeft).toBeGreaterThan(5_000);
  });

  it('deletes the windows that have ended, a batch at a time, and keeps the others', async () => {
    const ended = [aKey(), aKey(), aKey()];
    const live = aKey();
    await platform.pool.query(
      `INSERT INTO rate_limits (key, count, window_ends_at)
       SELECT key, 1, now() - interval '1 minute' FROM unnest($1::text[]) AS key
       UNION ALL SELECT $2, 1, now() + interval '1 minute'`,
      [ended, live],
    );
    expect(await deleteEndedWindows(platform.pool, 2)).toBeGreaterThanOrEqual(ended.length);
    const left = await platform.pool.query<{ key: string }>(
      'SELECT key FROM rate_limits WHERE key = ANY($1::text[])',
      [[...ended, live]],
    );
    expect(left.rows.map((row) => row.key)).toEqual([live]);
  });
});
