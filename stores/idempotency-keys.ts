import { createHash } from 'node:crypto';
import { idempotencyKeyLifetimeMs } from '../domain/idempotency.ts';
import type { PgPool } from '../platform/postgres.ts';

// Where a request's Idempotency-Key is kept (domain/idempotency.ts has the rule), per org, for 24
// hours: the first attempt's request id and time, what the request was (a fingerprint), and its
// answer once it has one. A title or preview keeps its request id (so both attempts' usage
// events count once) and its answer; a run's placing keeps its run id, and the run itself is the
// answer (read back from the run read model). Past their 24 hours keys are claimed afresh, and
// the retention job deletes them (jobs/retention.ts). The table keeps the name it had when only
// titles and previews took keys: renamed, the API processes of the release before, still serving
// during a rolling upgrade, would fail every keyed title until they were replaced.

export interface Claimed {
  requestId: string;
  occurredAt: Date;
  /** The first answer's body, once an attempt was answered (titles and previews keep one). */
  answer?: object;
  /** False when the key was first used for another request (route, model or body). */
  sameRequest: boolean;
}

/**
 * What makes two requests the same: what was asked (the route, and a model where it names one)
 * and the body as sent.
 */
export function fingerprint(asked: string, body: unknown): string {
  return createHash('sha256')
    .update(`${asked}\n${JSON.stringify(body)}`)
    .digest('base64url');
}

export class IdempotencyKeys {
  constructor(private readonly pool: PgPool) {}

  /**
   * The key's request, claimed for this attempt if the key is new (or its 24 hours are over):
   * one round trip either way.
   */
  async claim(
    orgId: string,
    key: string,
    attempt: { requestId: string; occurredAt: Date; fingerprint: string },
  ): Promise<Claimed> {
    const expired = `inference_idempotency.created_at <= now() - make_interval(secs => $6::float8 / 1000)`;
    const result = await this.pool.query<{
      request_id: string;
      occurred_at: Date;
      fingerprint: string;
      answer: object | null;
    }>(
      `INSERT INTO inference_idempotency (org_id, idempotency_key, request_id, occurred_at, fingerprint)
         VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (org_id, idempotency_key) DO UPDATE SET
         request_id = CASE WHEN ${expired} THEN EXCLUDED.request_id ELSE inference_idempotency.request_id END,
         occurred_at = CASE WHEN ${expired} THEN EXCLUDED.occurred_at ELSE inference_idempotency.occurred_at END,
         fingerprint = CASE WHEN ${expired} THEN EXCLUDED.fingerprint ELSE inference_idempotency.fingerprint END,
         answer = CASE WHEN ${expired} THEN NULL ELSE inference_idempotency.answer END,
         created_at = CASE WHEN ${expired} THEN now() ELSE inference_idempotency.created_at END
       RETURNING request_id, occurred_at, fingerprint, answer`,
      [orgId, key, attempt.requestId, attempt.occurredAt, attempt.fingerprint, idempotencyKeyLifetimeMs],
    );
    const row = result.rows[0]!;
    return {
      requestId: row.request_id,
      occurredAt: row.occurred_at,
      answer: row.answer ?? undefined,
      sameRequest: row.fingerprint === attempt.fingerprint,
    };
  }

  /** Keeps the answer for the key's retries. */
  async remember(orgId: string, key: string, answer: object): Promise<void> {
    await this.pool.query(
      'UPDATE inference_idempotency SET answer = $3 WHERE org_id = $1 AND idempotency_key = $2',
      [orgId, key, answer],
    );
  }
}
