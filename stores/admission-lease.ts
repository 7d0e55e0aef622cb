import { randomUUID } from 'node:crypto';
import type { PgPool } from '../platform/postgres.ts';

// One API process at a time admits an org's spans (or deletes its traces), so each decision is
// made against a ledger nobody else is changing. Within a process, requests of one org already
// queue (api/otlp/admission-queue.ts); across processes the org's lease in Postgres serializes
// them. Unlike the transaction-scoped advisory lock it replaces, a lease holds no connection
// while the ledger is read and the request decided. The statement that records what was accepted
// gives it back (ingest-ledger.ts, recordAccepted), only if it is still held: a process that lost
// it (paused past its expiry) records nothing, and its caller gets 503 and sends again. That
// statement runs while Kafka acknowledges the spans and commits after, so for that while another
// process's acquire waits on the lease's row rather than polling.

/** This process, as a lease holder. */
const thisProcess = `api-${randomUUID()}`;

export interface Lease {
  readonly orgId: string;
  readonly holder: string;
  /** Set by the statement that recorded the work and gave the lease back (ingest-ledger.ts). */
  givenBack: boolean;
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
   * @param ttlMs how long a lease lasts unless given back: longer than a publish may take (the
   *   caller's wait), so only a process that died or stalled loses one.
   */
  constructor(
    private readonly pool: PgPool,
    private readonly ttlMs: number,
    /** Who holds what this instance takes: this process, or a test's stand-in for another. */
    private readonly holder = thisProcess,
  ) {}

  /** Takes the org's lease, waiting up to `waitMs` while another process holds it. */
  async acquire(orgId: string, waitMs: number): Promise<Lease> {
    const started = Date.now();
    for (let attempt = 0; ; attempt += 1) {
      const taken = await this.pool.query({
        // Prepared by name, as the ledger's statements are (ingest-ledger.ts).
        name: 'admission-lease-acquire',
        text: `INSERT INTO admission_leases AS l (org_id, holder, expires_at)
           VALUES ($1, $2, now() + make_interval(secs => $3::float8 / 1000))
         ON CONFLICT (org_id) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
           WHERE l.holder = EXCLUDED.holder OR l.expires_at <= now()
         RETURNING 1`,
        values: [orgId, this.holder, this.ttlMs],
      });
      if ((taken.rowCount ?? 0) > 0) return { orgId, holder: this.holder, givenBack: false };
      const waited = Date.now() - started;
      if (waited >= waitMs) throw new LeaseUnavailable(orgId, waited);
      await new Promise((resolve) => setTimeout(resolve, Math.min(100, 5 * 2 ** attempt)));
    }
  }

  /**
   * Runs `work` with the org's lease. Work that records gives the lease back in the same
   * statement; otherwise (nothing to record, a failed publish) it is given back here, so the org's
   * next requests need not wait for it to expire.
   */
  async hold<T>(orgId: string, waitMs: number, work: (lease: Lease) => Promise<T>): Promise<T> {
    const lease = await this.acquire(orgId, waitMs);
    try {
      return await work(lease);
    } finally {
      if (!lease.givenBack) await this.release(lease).catch(() => undefined);
    }
  }

  /** Gives the lease back when nothing was recorded. */
  async release(lease: Lease): Promise<void> {
    await this.pool.query(
      'UPDATE admission_leases SET expires_at = now() WHERE org_id = $1 AND holder = $2',
      [lease.orgId, lease.holder],
    );
  }
}

/**
 * The SQL a recording statement starts with: a CTE `lease` that gives the lease back and yields a
 * row only if it was still held, for the statement's writes to depend on.
 */
export const releaseLeaseCte = (orgParam: string, holderParam: string) =>
  `lease AS (
     UPDATE admission_leases SET expires_at = now()
      WHERE org_id = ${orgParam} AND holder = ${holderParam} AND expires_at > now()
      RETURNING 1
   )`;
