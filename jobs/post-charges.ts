import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { chargedByDay, chargeIdFor, decideCharges, type OwedCharge } from '../domain/billing/charges.ts';
import { orgModelDayKey } from '../domain/billing/day.ts';
import { decide } from '../domain/orgs/decide.ts';
import type { OrgEvent } from '../domain/orgs/events.ts';
import { evolve, type MaybeOrg } from '../domain/orgs/org.ts';
import { exclusively } from '../platform/advisory-lock.ts';
import { poll } from '../platform/poll.ts';
import { createPgPool, type PgPool } from '../platform/postgres.ts';
import { publishOrgEvents } from '../producers/org.ts';
import { createEventProducer, type EventProducer } from '../producers/producer.ts';
import { type BillingFilter, countCharges, readCharged, readDayUsage } from '../stores/billing.ts';
import { loadOrg } from '../stores/org.ts';

// The posting job (spec 000, Billing rules 2): each org/model/UTC day of the usage rollups is
// priced with decideCharges and whatever has not yet been charged is posted as a ChargePosted
// event on the org stream. Run it as often as you like (`npx tsx jobs/post-charges.ts`): a second
// run posts nothing new, a run later in the day posts only the difference.
//
// Why it cannot charge twice: runs are serialized by a Postgres advisory lock, each run waits
// until its charges are in the read model it reads the next time, and a charge's id is derived
// from what it charges, so even a run that saw stale charges posts an id the org already has.

export interface PostChargesDeps {
  pool: PgPool;
  producer: EventProducer;
  /** How long to wait for the org projection to show the charges; the consumers must run. */
  projectionTimeoutMs?: number;
  now?: () => Date;
}

export interface PostedCharge {
  chargeId: string;
  orgId: string;
  model: string;
  day: string;
  cents: number;
}

export interface PostChargesResult {
  posted: PostedCharge[];
  /** Owed charges of orgs unknown to the org stream (usage published by hand, for instance). */
  skipped: (OwedCharge & { reason: string })[];
}

/** The posting lock: held by every posting run, the jobs process's, a repair's or one by hand. */
const postingLock = 'orrery:post-charges';

/**
 * Posts what is owed; throws LockHeld, posting nothing, while another posting run is under way
 * (the jobs process then skips its run quietly, jobs/runner.ts).
 */
export function postCharges(deps: PostChargesDeps, filter: BillingFilter = {}): Promise<PostChargesResult> {
  return exclusively(
    deps.pool,
    postingLock,
    () => postOwed(deps, filter),
    'Another posting job is running; run this one when it has finished.',
  );
}

async function postOwed(deps: PostChargesDeps, filter: BillingFilter): Promise<PostChargesResult> {
  const charged = await readCharged(deps.pool, filter);
  const owed = decideCharges(await readDayUsage(deps.pool, filter), charged);
  const chargedBefore = chargedByDay(charged);
  const result: PostChargesResult = { posted: [], skipped: [] };
  const events: OrgEvent[] = [];
  for (const [orgId, charges] of groupByOrg(owed)) {
    let org: MaybeOrg = await loadOrg(deps.pool, orgId);
    if (!org) {
      for (const charge of charges) result.skipped.push({ ...charge, reason: 'no such org' });
      continue;
    }
    for (const charge of charges) {
      const chargeId = chargeIdFor(charge, chargedBefore.get(orgModelDayKey(charge)) ?? 0);
      const decided = decide(
        {
          type: 'PostCharge',
          eventId: randomUUID(),
          orgId,
          now: deps.now?.() ?? new Date(),
          chargeId,
          model: charge.model,
          day: charge.day,
          cents: charge.cents,
        },
        org,
      );
      for (const event of decided) {
        org = evolve(org, event);
        events.push(event);
        result.posted.push({ chargeId, orgId, model: charge.model, day: charge.day, cents: charge.cents });
      }
    }
  }
  await publishOrgEvents(deps.producer, events);
  await waitUntilChargesReadable(
    deps,
    result.posted.map((charge) => charge.chargeId),
  );
  return result;
}

function groupByOrg(charges: OwedCharge[]): Map<string, OwedCharge[]> {
  const byOrg = new Map<string, OwedCharge[]>();
  for (const charge of charges) byOrg.set(charge.orgId, [...(byOrg.get(charge.orgId) ?? []), charge]);
  return byOrg;
}

/** The next run reads charges from Postgres, so this one returns only once they are there. */
async function waitUntilChargesReadable(deps: PostChargesDeps, chargeIds: string[]): Promise<void> {
  if (chargeIds.length === 0) return;
  const readable = await poll(async () => (await countCharges(deps.pool, chargeIds)) === chargeIds.length, {
    timeoutMs: deps.projectionTimeoutMs ?? 30_000,
    intervalMs: 50,
  });
  if (!readable)
    throw new Error(
      'The charges were posted but are not in the read model yet; are the consumers running (npm start)?',
    );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      org: { type: 'string', multiple: true },
      from: { type: 'string' },
      to: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const pool = createPgPool(2);
  const producer = await createEventProducer('orrery-post-charges');
  try {
    const result = await postCharges(
      { pool, producer },
      { orgIds: values.org, from: values.from, to: values.to },
    );
    if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    else {
      for (const c of result.posted)
        process.stdout.write(`posted ${c.cents} cents ${c.orgId} ${c.model} ${c.day} ${c.chargeId}\n`);
      for (const c of result.skipped)
        process.stdout.write(`skipped ${c.cents} cents ${c.orgId} ${c.model} ${c.day}: ${c.reason}\n`);
      process.stdout.write(`${result.posted.length} charges posted\n`);
    }
  } finally {
    await producer.disconnect();
    await pool.end();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    process.stderr.write(`post-charges: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
