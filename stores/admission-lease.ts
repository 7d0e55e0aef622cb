import { randomUUID } from 'node:crypto';
import { Presence, presentSql } from '../platform/advisory-lock.ts';
import type { PgPool } from '../platform/postgres.ts';

// One API process at a time admits an org's spans (or deletes its traces), so each decision is
// made against a ledger nobody else is changing. Within a process, an org's requests already go
// through one line (api/otlp/org-admissions.ts); across processes the org's lease in Postgres
// serializes them. The lease holds no connection: the process keeps it while the org's groups
// follow each other, and every statement that records one renews it (ingest-ledger.ts,
// recordAccepted), only if it is still held: a process that lost it (paused past its expiry)
// records nothing, and its caller gets 503 and sends again.
//
// Handing over: a process that cannot take the lease joins the org's line of wanters
// (admission_lease_wanters) and asks again every few milliseconds. The holder's next recording
// hands the lease to the first of them still asking, in the same statement, so it passes when that
// recording commits and never lies free between the two; and an expired or given-back lease is
// taken only by the first of the line while anyone waits. So a holder under steady load cannot take
// the lease straight back (it joins the line behind the others), and two processes serving one org
// take turns, a group each. That recording runs while Kafka acknowledges the spans and commits
// after, so a wanter asking meanwhile waits on the lease's row and gets the lease at the commit
// rather than at its next ask. Alone, a process never finds a wanter, and pays nothing for this.
//
// Liveness: each holder keeps a session-level advisory lock on a connection of its own (its
// presence, platform/advisory-lock.ts), which Postgres drops the moment that connection ends. A
// lease whose holder shows no presence is free at once, its time left or not: a process killed
// -9 holds up none of its orgs until the lease expires. A holder that is alive but cut off from
// Postgres loses its leases the same way, and then records nothing (each recording checks it
// still holds the lease).

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
  private readonly presence: Presence;

  /**
   * @param ttlMs how long a lease lasts unless renewed or given back: longer than a publish may
   *   take (the caller's wait), so only a process that died or stalled loses one.
   */
  constructor(
    private readonly pool: PgPool,
    private readonly ttlMs: number,
    /**
     * Who holds what this instance takes: a name of its own (one per instance, as each has its
     * own presence), or a test's stand-in for another process.
     */
    readonly holder = `api-${randomUUID()}`,
  ) {
    this.presence = new Presence(pool.options, holder);
  }

  /**
   * Takes (or renews) the org's lease, waiting up to `waitMs` while another process holds it or
   * others waited first; each try that finds it so keeps this process in the org's line, so the
   * holder hands the lease over at the end of its group under way. A wait given up leaves the line
   * (and hands on a lease handed over meanwhile).
   */
  async acquire(orgId: string, waitMs: number): Promise<Lease> {
    const started = Date.now();
    await this.presence.ensure();
    for (let attempt = 0; ; attempt += 1) {
      const sent = performance.now();
      const taken = await this.pool.query<{ taken: boolean }>({
        // Prepared by name, as the ledger's statements are (ingest-ledger.ts).
        name: 'admission-lease-acquire',
        text: acquireStatement,
        values: [orgId, this.holder, this.ttlMs],
      });
      if (taken.rows[0]?.taken)
        return { orgId, holder: this.holder, ttlMs: this.ttlMs, validUntil: sent + this.ttlMs };
      const waited = Date.now() - started;
      if (waited >= waitMs) {
        await this.leave(orgId).catch(() => undefined);
        throw new LeaseUnavailable(orgId, waited);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(maxAskPauseMs, 5 * 2 ** attempt)));
    }
  }

  /**
   * Gives the lease back, if still held: to the first process waiting for it, or to whoever asks
   * next. The caller starts nothing under this lease afterwards, and takes none of the org's
   * leases meanwhile: the statement gives back whatever lease of the org this holder has.
   */
  async release(lease: Lease): Promise<void> {
    await this.leave(lease.orgId);
  }

  /** Ends the holder's presence: whatever leases it still has are free at once. */
  close(): Promise<void> {
    return this.presence.close();
  }

  /** This holder leaves the org's line, and hands its lease on if it has it. */
  private async leave(orgId: string): Promise<void> {
    await this.pool.query({
      name: 'admission-lease-leave',
      text: leaveStatement,
      values: [orgId, this.holder, this.ttlMs],
    });
  }
}

/** The longest pause between two asks of a process waiting for a lease. */
const maxAskPauseMs = 100;

/**
 * How recently a wanter must have asked to be in the line: well past its longest pause between two
 * asks, so one still waiting is never skipped, and short, so the lease is not handed to a process
 * that died waiting.
 */
const askedWithin = `make_interval(secs => ${(10 * maxAskPauseMs) / 1000})`;

/** The first of the org's line still asking, but for `except` (`$n` placeholders or literals). */
const firstWanter = (p: { org: string; except?: string }) =>
  `SELECT holder FROM admission_lease_wanters
    WHERE org_id = ${p.org}${p.except ? ` AND holder <> ${p.except}` : ''} AND asked_at > now() - ${askedWithin}
    ORDER BY since, holder LIMIT 1`;

/**
 * The lease is free for the one asking: it holds it (renewing it, or handed it), or its time is up
 * (given back, or its holder stalled) or its holder is gone (shows no presence), and nobody waits
 * ahead of the one asking, its last holder included. Presence is looked up only for a lease another
 * holder has and has not let expire, and once per try (the statement's columns all follow it).
 */
const free = `CASE WHEN l.expires_at > now() AND (l.holder = EXCLUDED.holder OR ${presentSql('l.holder')})
  THEN l.holder = EXCLUDED.holder
  ELSE coalesce((SELECT holder FROM first_wanter), EXCLUDED.holder) = EXCLUDED.holder END`;

/**
 * One try to take the lease ($1 org, $2 holder, $3 its time to live in ms): taken, the one asking
 * leaves the line; not, it joins the line or stays in it, where it keeps its place (unless it had
 * stopped asking). Wanters that stopped asking are removed on the way. `wanted_at` is still set
 * for holders running the previous release, which give the lease back when they find it set.
 */
const acquireStatement = `WITH first_wanter AS (${firstWanter({ org: '$1' })}),
  lease AS (
    INSERT INTO admission_leases AS l (org_id, holder, expires_at)
    VALUES ($1, $2, now() + make_interval(secs => $3::float8 / 1000))
    ON CONFLICT (org_id) DO UPDATE SET (holder, expires_at, wanted_at) = (
      SELECT CASE WHEN free THEN EXCLUDED.holder ELSE l.holder END,
             CASE WHEN free THEN EXCLUDED.expires_at ELSE l.expires_at END,
             CASE WHEN free THEN NULL ELSE now() END
        FROM (SELECT ${free} AS free) asked)
    RETURNING l.holder = $2 AS taken
  ),
  asking AS (
    INSERT INTO admission_lease_wanters AS w (org_id, holder, since, asked_at)
    SELECT $1, $2, clock_timestamp(), clock_timestamp() FROM lease WHERE NOT taken
    ON CONFLICT (org_id, holder) DO UPDATE SET
      since = CASE WHEN w.asked_at > now() - ${askedWithin} THEN w.since ELSE EXCLUDED.since END,
      asked_at = EXCLUDED.asked_at
  ),
  left_line AS (
    DELETE FROM admission_lease_wanters
     WHERE org_id = $1
       AND CASE WHEN holder = $2 THEN (SELECT taken FROM lease) ELSE asked_at <= now() - ${askedWithin} END
  )
  SELECT taken FROM lease`;

/**
 * The holder ($2) gives the org's ($1) lease to the first wanter still asking, for a whole time to
 * live ($3 ms), or lets it expire now if none is; and leaves the line, if it was in it.
 */
const leaveStatement = `WITH next_holder AS (${firstWanter({ org: '$1', except: '$2' })}),
  left_line AS (DELETE FROM admission_lease_wanters WHERE org_id = $1 AND holder = $2)
  UPDATE admission_leases SET
    holder = coalesce((SELECT holder FROM next_holder), holder),
    expires_at = CASE WHEN EXISTS (SELECT 1 FROM next_holder)
      THEN now() + make_interval(secs => $3::float8 / 1000) ELSE now() END
  WHERE org_id = $1 AND holder = $2`;

/**
 * Whether another process waits for the org's lease, as a column of a statement the holder runs
 * under it anyway (the ledger's read): a group that records nothing learns so at no cost.
 */
export const leaseWantedColumn = (p: { org: string; holder: string }) =>
  `EXISTS (${firstWanter({ org: p.org, except: p.holder })}) AS lease_wanted`;

/**
 * The SQL a recording statement starts with: CTEs ending in `lease`, which renews the lease for
 * `ttl` ms and yields a row only if it was still held: the statement's writes depend on that row.
 * If another process waits, the lease is handed to the first of the line instead, for `ttl` ms from
 * now, and the row says `handed_over`: it passes when the recording commits, and until then the
 * recording locks the lease's row, so a wanter asking meanwhile gets it at the commit.
 */
export const renewLeaseCte = (p: { org: string; holder: string; ttl: string }) =>
  `next_holder AS (${firstWanter({ org: p.org, except: p.holder })}),
   lease AS (
     UPDATE admission_leases SET
       holder = coalesce((SELECT holder FROM next_holder), holder),
       expires_at = now() + make_interval(secs => ${p.ttl}::float8 / 1000)
      WHERE org_id = ${p.org} AND holder = ${p.holder} AND expires_at > now()
      RETURNING holder <> ${p.holder} AS handed_over
   )`;
