import { createHash } from 'node:crypto';
import { idempotencyKeyLifetimeMs } from '../../domain/usage/identity.ts';
import type { PgPool } from '../../platform/postgres.ts';

// Idempotency-Key on title and preview requests (Stripe's convention, README "Title and preview
// text"): a retry with the same key, within 24 hours, is the same request. It gets the first
// attempt's request id and time, so if both attempts' usage events reach Kafka (the first one's
// publish timed out after the broker wrote it) every projection counts the request once; and once
// an attempt was answered, a retry gets that answer again without asking the model.

export interface Claimed {
  requestId: string;
  occurredAt: Date;
  /** The first answer's body, once an attempt was answered. */
  answer?: object;
  /** False when the key was first used for another endpoint, model or body. */
  sameRequest: boolean;
}

/** What makes two requests the same: the endpoint, the model and the body. */
export function fingerprint(endpoint: string, model: string, body: unknown): string {
  return createHash('sha256')
    .update(`${endpoint}\n${model}\n${JSON.stringify(body)}`)
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
