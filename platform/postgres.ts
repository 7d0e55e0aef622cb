import pg from 'pg';
import { config } from './config.ts';
import { logger } from './logger.ts';
import { isUnreachableSocketCode } from './socket-errors.ts';

// int8 (bigint) columns come back as strings by default; counts and cents in our tables fit
// in a double's safe range, and sums are cast explicitly where they might not.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type PgPool = pg.Pool;
export type PgClient = pg.PoolClient;

/** How long a new connection may take: a server that does not answer is unreachable, not slow. */
const connectionTimeoutMs = 2_000;

/**
 * How much longer than its statement bound a query is waited for, for the answer to travel: past
 * that, the server is taken to have hung (a stopped process answers nothing, not even the
 * statement timeout's error).
 */
const answerMarginMs = 200;

/**
 * How long a bounded pool's transaction may sit idle before Postgres ends it: far past any wait of
 * ours inside one (a recording waits for Kafka, ORRERY_PUBLISH_TIMEOUT_MS), so only a process
 * that stalled or lost its way leaves one open, and its locks (an admission group's undecided row,
 * stores/admission-groups.ts) are not held longer.
 */
const idleInTransactionMs = 10_000;

/**
 * A pool that outlives its server: a connection the server ends (a restart, 57P01) is reported
 * and dropped, and the next query connects again. Without the listeners such an error is an
 * unhandled 'error' event, which ends the process: the pool listens only to idle clients, and
 * a checked-out client (in a transaction, or between two queries) has no listener of its own.
 * Given `statementTimeoutMs`, no statement outlasts it: Postgres cancels one that runs longer
 * (57014), and one a hung server never answers is given up on shortly after (its connection is
 * then dropped), so a request is not held by either.
 */
export function createPgPool(
  max = 10,
  url = config().postgres.url,
  bounds: { statementTimeoutMs?: number } = {},
): PgPool {
  const { statementTimeoutMs } = bounds;
  const pool = new pg.Pool({
    connectionString: url,
    max,
    idleTimeoutMillis: 30_000,
    // Waiting for a connection (a new one, or a free one of the pool's) is bounded as a statement is.
    connectionTimeoutMillis: Math.min(connectionTimeoutMs, statementTimeoutMs ?? connectionTimeoutMs),
    // Names the process in pg_stat_activity (an operator's, or a test's, way to find its sessions).
    application_name: `orrery-${process.env.ORRERY_SERVICE ?? 'process'}`,
    ...(statementTimeoutMs === undefined
      ? {}
      : {
          statement_timeout: statementTimeoutMs,
          query_timeout: statementTimeoutMs + answerMarginMs,
          idle_in_transaction_session_timeout: idleInTransactionMs,
        }),
  });
  const lost = (error: Error) => logger.warn({ err: error }, 'postgres: a connection was lost');
  pool.on('error', lost);
  pool.on('connect', (client) => client.on('error', lost));
  return pool;
}

// SQLSTATE classes and codes that say the server is away, not that the statement was wrong:
// connection exceptions (08), shutting down (57P01 to 57P03), and the socket's own errors
// (platform/socket-errors.ts); and a statement cancelled at its bound (57014, statement_timeout),
// as slow as a server away.
const unreachableCodes = new Set(['57014', '57P01', '57P02', '57P03']);

/**
 * Whether `error` says Postgres could not be reached, or did not answer within a statement's
 * bound (so a retry later may succeed).
 */
export function isPostgresUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (isUnreachableSocketCode(code)) return true;
  if (typeof code === 'string' && (unreachableCodes.has(code) || code.startsWith('08'))) return true;
  // node-postgres's own words for a connection that ended or never came, or a query given up on
  // (no code on these).
  return unreachableMessage.test(error.message);
}

/** node-postgres's message for a query its `query_timeout` gave up on. */
const givenUpMessage = 'Query read timeout';

const unreachableMessage = new RegExp(
  `^Connection terminated|^timeout exceeded when trying to connect|^Client has encountered a connection error|^${givenUpMessage}`,
);

/** A query the client gave up waiting for: its connection still awaits the answer, and is no more usable. */
function givenUp(error: unknown): boolean {
  return error instanceof Error && error.message === givenUpMessage;
}

export interface TransactionOptions {
  /**
   * Commit without waiting for the transaction's WAL to reach the disk (`synchronous_commit`
   * off, for this transaction only). A crash of the server can then lose the last commits, those
   * of up to three times `wal_writer_delay` (0.6 s by default), each whole or not at all; for
   * writes whose loss the caller already survives, as when a commit fails.
   */
  asyncCommit?: boolean;
}

/** Runs `work` in one transaction, rolled back if it throws. */
export async function inTransaction<T>(
  pool: PgPool,
  work: (client: PgClient) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  const client = await pool.connect();
  let unusable: Error | undefined;
  try {
    // One round trip either way: both statements go as one simple query.
    await client.query(options.asyncCommit ? 'BEGIN; SET LOCAL synchronous_commit TO off' : 'BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // A query given up on holds the connection: dropped, it rolls the transaction back by itself,
    // and a ROLLBACK would only wait behind the unanswered query.
    if (givenUp(error)) unusable = error as Error;
    else await client.query('ROLLBACK').catch((rollbackFailed: Error) => (unusable = rollbackFailed));
    throw error;
  } finally {
    client.release(unusable);
  }
}
