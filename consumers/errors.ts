import { isPostgresUnreachable } from '../platform/postgres.ts';
import { AdmissionUndecided } from '../projections/admission-gate.ts';

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
  if (isPostgresUnreachable(error) || error instanceof AdmissionUndecided) return true;
  const { code } = error as Error & { code?: unknown };
  if (typeof code === 'string') {
    if (transientNodeCodes.has(code) || transientPostgresStates.has(code)) return true;
    if (transientClickHouseCodes.has(code)) return true;
  }
  if (/Connection terminated|socket hang up|timeout|ECONNREFUSED|ECONNRESET/i.test(error.message))
    return true;
  return error.cause !== undefined && isTransientStoreError(error.cause);
}

/**
 * Whether decoding failed because the schema registry could not answer (down, restarting, or its
 * own database away: it answers 5xx), not because the message is malformed. The message is then
 * decoded again later; dead-lettering it would lose an event that is fine. The registry's client
 * throws `ResponseError` for every failed request (a network failure comes as status 400); a 404
 * is a schema id the registry does not have, which waiting does not change.
 */
export function isRegistryUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { status } = error as Error & { status?: unknown };
  if (error.name === 'ResponseError') return status !== 404;
  return isTransientStoreError(error);
}
