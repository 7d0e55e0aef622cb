import { isPostgresUnreachable } from '../platform/postgres.ts';

// Which store errors are worth retrying with backoff (the store is down, busy or restarting) and
// which mean the batch itself cannot be applied (those messages go to the dead-letter topic).

const transientNodeCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EAI_AGAIN',
]);

// Postgres SQLSTATEs besides an unreachable server (platform/postgres.ts): serialization
// failure, deadlock, too many connections.
const transientPostgresStates = new Set(['40001', '40P01', '53300']);

// ClickHouse server codes: timeout exceeded, too many simultaneous queries, memory limit exceeded,
// too many parts (merges are behind).
const transientClickHouseCodes = new Set(['159', '202', '241', '252']);

export function isTransientStoreError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (isPostgresUnreachable(error)) return true;
  const { code } = error as Error & { code?: unknown };
  if (typeof code === 'string') {
    if (transientNodeCodes.has(code) || transientPostgresStates.has(code)) return true;
    if (transientClickHouseCodes.has(code)) return true;
  }
  if (/Connection terminated|socket hang up|timeout|ECONNREFUSED|ECONNRESET/i.test(error.message))
    return true;
  return error.cause !== undefined && isTransientStoreError(error.cause);
}
