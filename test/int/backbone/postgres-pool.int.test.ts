import { afterAll, describe, expect, it } from 'vitest';
import { createPgPool, inTransaction, isPostgresUnreachable } from '../../../platform/postgres.ts';

// A pool outlives its server ending connections (issue 11, item 1): Postgres restarting sends
// 57P01 to every session; on a client nobody listens to, that 'error' event ends the process.
// Here the server ends the sessions of one pool, one checked out and idle, one idle in the pool.

const admin = createPgPool(1);
afterAll(() => admin.end());

const backendPid = async (query: (sql: string) => Promise<{ rows: { pid: number }[] }>) =>
  (await query('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;

describe('createPgPool', () => {
  it('survives the server ending its sessions, checked out or idle, and connects again', async () => {
    const pool = createPgPool(2);
    try {
      const held = await pool.connect();
      const idle = await pool.connect();
      const heldPid = await backendPid((sql) => held.query(sql));
      const idlePid = await backendPid((sql) => idle.query(sql));
      idle.release();
      // The pool's own listeners, not the test's: with none, the event would end the process.
      expect(held.listenerCount('error')).toBeGreaterThan(0);
      expect(pool.listenerCount('error')).toBeGreaterThan(0);

      const heldError = new Promise<Error>((resolve) => held.once('error', resolve));
      const idleError = new Promise<Error>((resolve) => pool.once('error', resolve));
      await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [
        [heldPid, idlePid],
      ]);

      const [ended, endedIdle] = await Promise.all([heldError, idleError]);
      expect((ended as Error & { code?: string }).code).toBe('57P01');
      expect(isPostgresUnreachable(ended)).toBe(true);
      expect(isPostgresUnreachable(endedIdle)).toBe(true);
      held.release();

      const again = await pool.query('SELECT 1 AS one');
      expect(again.rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it('commits without waiting for the disk only in a transaction that asks, and only there', async () => {
    const pool = createPgPool(1); // one connection, so every transaction below shares it
    const setting = async (client: { query: (sql: string) => Promise<{ rows: unknown[] }> }) =>
      (await client.query('SHOW synchronous_commit')).rows[0];
    try {
      expect(await inTransaction(pool, setting, { asyncCommit: true })).toEqual({
        synchronous_commit: 'off',
      });
      expect(await inTransaction(pool, setting)).toEqual({ synchronous_commit: 'on' });
      expect(await setting(pool)).toEqual({ synchronous_commit: 'on' });
    } finally {
      await pool.end();
    }
  });

  it('says a refused connection is unreachable, and a bad statement is not', async () => {
    const refused = createPgPool(1, 'postgres://orrery:orrery@127.0.0.1:1/orrery');
    try {
      const error = await refused.query('SELECT 1').catch((thrown: unknown) => thrown);
      expect(isPostgresUnreachable(error)).toBe(true);
    } finally {
      await refused.end();
    }
    const syntax = await admin.query('SELEC 1').catch((thrown: unknown) => thrown);
    expect(isPostgresUnreachable(syntax)).toBe(false);
  });

  it('cancels a statement past its bound, as unavailable, in a transaction too, and keeps serving', async () => {
    const bounded = createPgPool(1, undefined, { statementTimeoutMs: 200 });
    try {
      const slow = await bounded.query('SELECT pg_sleep(2)').catch((thrown: unknown) => thrown);
      expect((slow as { code?: string }).code).toBe('57014');
      expect(isPostgresUnreachable(slow)).toBe(true);
      const inside = await inTransaction(bounded, (client) => client.query('SELECT pg_sleep(2)')).catch(
        (thrown: unknown) => thrown,
      );
      expect((inside as { code?: string }).code).toBe('57014');
      expect((await bounded.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      // Unbounded, the same statement runs to its end.
      expect((await admin.query('SELECT pg_sleep(0.3), 1 AS one')).rows[0]).toMatchObject({ one: 1 });
    } finally {
      await bounded.end();
    }
  });
});
