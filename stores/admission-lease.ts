import { randomUUID } from 'node:crypto';
import type { PgPool } from '../platform/postgres.ts';

// One API process at a time admits an org's spans (or deletes its traces), so each decision is
// made against a ledger nobody else is changing. Within a process, an org's requests already go
// through one line (api/otlp/org-admissions.ts); across processes the org's lease in Postgres
// serializes them. The lease holds no connection: the process keeps it while the org's groups
// follow each other, and every statement that records one renews it (ingest-ledger.ts,
// recordAccepted), only if it is still held: a process that lost it (paused past its expiry)
// records nothing, and its caller gets 503 and sends again. That statement runs while Kafka
// acknowledges the spans and commits after, so for that while another process's acquire waits on
// the lease's row rather than polling. A process that cannot take the lease marks it wanted; the
// holder gives it back once its groups under way are recorded, or when the org has gone quiet.

/** This process, as a lease holder. */
const thisProcess = `api-${randomUUID()}`;

export interface Lease {
  readonly orgId: string;
  readonly holder: string;
  /** How long each take or renewal makes it last (AdmissionLeases' ttlMs). */
  readonly ttlMs: number;
  /**
   * Until when (performance.now) the lease surely lasts: its time to live from when the statement
   * that last took or renewed it was sent. Postgres's clock, not this one, decides; this only tells
   * when to renew it before a group.
   */
  validUntil: number;
}

export class LeaseUnavailable extends Error {
  constructor(orgId: string, waitedMs: number) {
    super(`another API process held org ${orgId}'s admission for ${waitedMs} ms`);
    this.name = 'LeaseUnavailable';
  }
}

/** The lease was lost before the ledger recorded the request: nothing of it is kept. */
export class LeaseLost extends Error {
  constructor(orgId: string) {
    super(`org ${orgId}'s admission lease expired before the ledger was written`);
    this.name = 'LeaseLost';
  }
}

export class AdmissionLeases {
  /**
   * @param ttlMs how long a lease lasts unless renewed or given back: longer than a publish may
   *   take (the caller's wait), so only a process that died or stalled loses one.
   */
  constructor(
    private readonly pool: PgPool,
    private readonly ttlMs: number,
    /** Who holds what this instance takes: this process, or a test's stand-in for another. */
    readonly holder = thisProcess,
  ) {}

  /**
   * Takes (or renews) the org's lease, waiting up to `waitMs` while another process holds it; each
   * try that finds it held marks it wanted, so its holder gives it back soon.
   */
  async acquire(orgId: string, waitMs: number): Promise<Lease> {
    const started = Date.now();
    for (let attempt = 0; ; attempt += 1) {
      const sent = performance.now();
      const taken = await this.pool.query<{ taken: boolean }>({
        // Prepared by name, as the ledger's statements are (ingest-ledger.ts).
        name: 'admission-lease-acquire',
        text: `INSERT INTO admission_leases AS l (org_id, holder, expires_at)
           VALUES ($1, $2, now() + make_interval(secs => $3::float8 / 1000))
         ON CONFLICT (org_id) DO UPDATE SET
           holder = CASE WHEN ${free} THEN EXCLUDED.holder ELSE l.holder END,
           expires_at = CASE WHEN ${free} THEN EXCLUDED.expires_at ELSE l.expires_at END,
           wanted_at = CASE WHEN ${free} THEN NULL ELSE now() END
         RETURNING l.holder = $2 AS taken`,
        values: [orgId, this.holder, this.ttlMs],
      });
      if (taken.rows[0]?.taken)
        return { orgId, holder: this.holder, ttlMs: this.ttlMs, validUntil: sent + this.ttlMs };
      const waited = Date.now() - started;
      if (waited >= waitMs) throw new LeaseUnavailable(orgId, waited);
      await new Promise((resolve) => setTimeout(resolve, Math.min(100, 5 * 2 ** attempt)));
    }
  }

  /** Gives the lease back, if still held: the org's next work, here or elsewhere, takes it anew. */
  async release(lease: Lease): Promise<void> {
    await this.pool.query(
      'UPDATE admission_leases SET expires_at = now() WHERE org_id = $1 AND holder = $2',
      [lease.orgId, lease.holder],
    );
  }
}

/** The lease is free for the one asking: it holds it already, or its holder's time is up. */
const free = '(l.holder = EXCLUDED.holder OR l.expires_at <= now())';

/**
 * The SQL a recording statement starts with: a CTE `lease` that renews the lease for `ttl` ms and
 * yields a row, with whether another process wants the lease, only if it was still held: the
 * statement's writes depend on that row. It locks the lease's row until the recording commits.
 */
export const renewLeaseCte = (p: { org: string; holder: string; ttl: string }) =>
  `lease AS (
     UPDATE admission_leases SET expires_at = now() + make_interval(secs => ${p.ttl}::float8 / 1000)
      WHERE org_id = ${p.org} AND holder = ${p.holder} AND expires_at > now()
      RETURNING wanted_at IS NOT NULL AS wanted
   )`;
