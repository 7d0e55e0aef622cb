import pg from 'pg';
import { config } from './config.ts';

// int8 (bigint) columns come back as strings by default; counts and cents in our tables fit
// in a double's safe range, and sums are cast explicitly where they might not.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type PgPool = pg.Pool;
export type PgClient = pg.PoolClient;

export function createPgPool(max = 10, url = config().postgres.url): PgPool {
  return new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000 });
}

/** Runs `work` in one transaction, rolled back if it throws. */
export async function inTransaction<T>(pool: PgPool, work: (client: PgClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
