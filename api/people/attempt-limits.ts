import type {
  FastifyRateLimitOptions,
  FastifyRateLimitStore,
  FastifyRateLimitStoreCtor,
} from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import { isPostgresUnreachable, type PgPool } from '../../platform/postgres.ts';
import { countAttempt } from '../../stores/rate-limits.ts';
import { Unavailable } from '../errors.ts';

// The people surface's attempt limits (login, starting a command-line login) through
// @fastify/rate-limit, counted in Postgres (stores/rate-limits.ts) so that every API replica
// counts against the same window: in each process's memory, N replicas would give N times the
// attempts, and a restart would forget them.
//
// The plugin (10.x) makes its store with `new Store(options)`, options being its own settings,
// and each limiter's with `store.child(options)`, the limiter's settings merged in; it counts with
// `incr(key, callback, timeWindow, max)` and reads only the callback, so `incr` answers through
// it and never throws. Its types leave out `timeWindow` and `max`, which it always passes.

/** Every limit's name: the start of each of its keys, so no two limits count in one row. */
export type AttemptLimitName = 'login-address' | 'login-account' | 'device-code';

export interface AttemptLimit {
  name: AttemptLimitName;
  max: number;
  windowMs: number;
  /** Whom an attempt counts against: an address, an account. */
  subject: (request: FastifyRequest) => string;
}

/**
 * The attempt could not be counted, so it was not made: a 503 the caller retries, never an
 * attempt let through uncounted (an attacker could otherwise outlast the limit by overloading
 * Postgres) and never a 500.
 */
export class AttemptNotCounted extends Unavailable {
  constructor() {
    super('Attempts cannot be counted just now, so this one was not tried');
    this.name = 'AttemptNotCounted';
  }
}

/** The plugin's settings a store reads (index.js: its options, merged with a limiter's). */
interface LimiterSettings {
  continueExceeding?: boolean;
  exponentialBackoff?: boolean;
}

/** What `child` is typed to take: a route's options, which the settings it is passed extend. */
type ChildOptions = Parameters<FastifyRateLimitStore['child']>[0];

class PostgresAttemptStore implements FastifyRateLimitStore {
  constructor(
    private readonly pool: PgPool,
    private readonly log: FastifyBaseLogger,
    private readonly settings: LimiterSettings,
  ) {
    // A longer window after each refusal is not what the SQL counts: refused at start-up, not ignored.
    if (settings.exponentialBackoff)
      throw new Error('exponentialBackoff is not supported by the Postgres store');
  }

  incr(
    key: string,
    callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
    timeWindow?: number,
    max?: number,
  ): void {
    if (timeWindow === undefined || max === undefined) {
      callback(this.notCounted(new Error('@fastify/rate-limit passed no timeWindow or max to incr')));
      return;
    }
    const restartPast = this.settings.continueExceeding ? max : undefined;
    countAttempt(this.pool, key, { windowMs: timeWindow, restartPast }).then(
      (counted) => callback(null, { current: counted.count, ttl: counted.msLeft }),
      (error: unknown) => callback(this.notCounted(error)),
    );
  }

  child(options: ChildOptions): FastifyRateLimitStore {
    return new PostgresAttemptStore(this.pool, this.log, options as ChildOptions & LimiterSettings);
  }

  private notCounted(error: unknown): AttemptNotCounted {
    if (isPostgresUnreachable(error))
      this.log.warn({ err: error }, 'attempts not counted, Postgres away: 503');
    else this.log.error({ err: error }, 'attempts not counted: 503');
    return new AttemptNotCounted();
  }
}

/** The plugin's `store`: attempts counted in `pool`, failures logged to `log`. */
export function attemptCounts(pool: PgPool, log: FastifyBaseLogger): FastifyRateLimitStoreCtor {
  return class extends PostgresAttemptStore {
    constructor(settings: FastifyRateLimitOptions) {
      super(pool, log, settings as LimiterSettings);
    }
  };
}

/**
 * Counts an attempt against `limit` for the request, answering the seconds to wait when it is
 * past the limit (undefined while within it). Rejects with AttemptNotCounted if it cannot count.
 */
export function attemptLimiter(
  app: FastifyInstance,
  limit: AttemptLimit,
): (request: FastifyRequest) => Promise<number | undefined> {
  const count = app.createRateLimit({
    max: limit.max,
    timeWindow: limit.windowMs,
    keyGenerator: (request) => `${limit.name}:${limit.subject(request)}`,
  });
  return async (request) => {
    const outcome = await count(request);
    return !outcome.isAllowed && outcome.isExceeded ? outcome.ttlInSeconds : undefined;
  };
}
