import { randomUUID } from 'node:crypto';
import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { balanceCents, hasCredit } from '../../domain/billing/balance.ts';
import type { OrgEvent, Scope } from '../../domain/orgs/events.ts';
import { evolve, type OrgState } from '../../domain/orgs/org.ts';
import type { ModelPrice } from '../../domain/tracing/prices.ts';
import { type Consumer, createKafka, groupConsumer, topicEnd } from '../../platform/kafka.ts';
import type { Logger } from '../../platform/logger.ts';
import { decodeValue } from '../../platform/registry.ts';
import { orgEventFromWire } from '../../schemas/events/org-mapping.ts';
import { topics } from '../../schemas/events/topics.ts';

/** Who a request acts as: an org's API key, or a person in a dashboard session acting in an org. */
export type Principal = KeyPrincipal | MemberPrincipal;

export interface KeyPrincipal {
  kind: 'key';
  orgId: string;
  keyId: string;
  scopes: readonly Scope[];
}

/** A member at the dashboard may do what the org may: every scope. */
export interface MemberPrincipal {
  kind: 'member';
  orgId: string;
  personId: string;
  scopes: readonly Scope[];
}

/**
 * The API's in-memory view of orgs and keys, folded with domain/orgs' `evolve` from the org
 * stream itself (DESIGN.md, hot paths): a revoked key stops working as soon as its event is
 * fetched, typically within 100 ms, without a database round trip per request.
 */
export class OrgDirectory {
  private readonly orgs = new Map<string, OrgState>();
  private readonly keysByHash = new Map<string, { orgId: string; keyId: string }>();
  /** Each person's orgs, kept with MemberAdded and MemberRemoved. */
  private readonly orgsByPerson = new Map<string, Set<string>>();
  /**
   * The ids of the latest events applied, so a command's shell can wait until its own events are
   * seen here (api/people/commands.ts). Bounded: a waiter looks within a second or two.
   */
  private readonly recentEventIds = new Set<string>();
  private static readonly recentEventsKept = 10_000;
  /** Each org's own prices as one array, made again only when they change (`prices`). */
  private readonly pricesByOrg = new Map<string, readonly ModelPrice[]>();
  private static readonly noPrices: readonly ModelPrice[] = Object.freeze([]);

  apply(event: OrgEvent): void {
    this.remember(event.eventId);
    const next = evolve(this.orgs.get(event.orgId), event);
    if (!next) return;
    this.orgs.set(event.orgId, next);
    if (event.type === 'ApiKeyCreated')
      this.keysByHash.set(event.keyHash, { orgId: event.orgId, keyId: event.keyId });
    if (event.type === 'MemberAdded') {
      const orgs = this.orgsByPerson.get(event.personId) ?? new Set<string>();
      this.orgsByPerson.set(event.personId, orgs.add(event.orgId));
    }
    if (event.type === 'MemberRemoved') this.orgsByPerson.get(event.personId)?.delete(event.orgId);
    if (event.type === 'ModelPriceSet' || event.type === 'ModelPriceRemoved')
      this.pricesByOrg.set(event.orgId, Object.freeze([...next.prices.values()]));
  }

  private remember(eventId: string): void {
    this.recentEventIds.add(eventId);
    if (this.recentEventIds.size > OrgDirectory.recentEventsKept) {
      const oldest = this.recentEventIds.values().next().value;
      if (oldest !== undefined) this.recentEventIds.delete(oldest);
    }
  }

  /** Whether an event published lately has been applied. */
  hasApplied(eventId: string): boolean {
    return this.recentEventIds.has(eventId);
  }

  /** The org, if the person is a member of it now. */
  memberOrg(orgId: string, personId: string): OrgState | undefined {
    const org = this.orgs.get(orgId);
    return org?.members[personId] ? org : undefined;
  }

  /** The orgs the person is a member of now. */
  orgsOf(personId: string): OrgState[] {
    return [...(this.orgsByPerson.get(personId) ?? [])].flatMap((orgId) => this.orgs.get(orgId) ?? []);
  }

  org(orgId: string): OrgState | undefined {
    return this.orgs.get(orgId);
  }

  /**
   * The org's balance (domain/billing/balance.ts); 0 for an unknown org. Charges arrive on the
   * org stream, so an org charged to zero gets 402 once the charge event is fetched.
   */
  balanceCents(orgId: string): number {
    return balanceCents(this.orgs.get(orgId));
  }

  /** Whether the org may be served a billed answer (domain/billing's rule). */
  hasCredit(orgId: string): boolean {
    return hasCredit(this.orgs.get(orgId));
  }

  /**
   * The org's own prices (issue 50, item 1), each model once whatever its case, as last set; none
   * for an unknown org. Read on the OTLP ingest's path once per request: no copy is made here, the
   * array is made when an event changes it.
   */
  prices(orgId: string): readonly ModelPrice[] {
    return this.pricesByOrg.get(orgId) ?? OrgDirectory.noPrices;
  }

  /** The key's principal, or undefined when the key is unknown or revoked. */
  principal(keyHash: string): KeyPrincipal | undefined {
    const entry = this.keysByHash.get(keyHash);
    if (!entry) return undefined;
    const key = this.orgs.get(entry.orgId)?.keys[entry.keyId];
    if (!key || key.revoked) return undefined;
    return { kind: 'key', orgId: entry.orgId, keyId: key.keyId, scopes: key.scopes };
  }
}

export interface OrgFollower {
  /** Resolves once every event on the topic when the follower started has been applied. */
  readonly caughtUp: Promise<void>;
  isCaughtUp(): boolean;
  stop(): Promise<void>;
}

/**
 * Reads the whole org stream into the directory and follows it. Each API process reads it in a
 * group of its own and never commits, so every process sees every event from the start.
 */
export async function followOrgStream(
  directory: OrgDirectory,
  deps: { registry: SchemaRegistry; logger: Logger },
): Promise<OrgFollower> {
  const topic = topics.org.name;
  const kafka = createKafka('orrery-api-org-follower');
  const pending = new Map([...(await topicEnd(topic))].filter(([, high]) => high > 0n));
  let caughtUp = false;
  let markCaughtUp: () => void = () => undefined;
  const caughtUpPromise = new Promise<void>((resolve) => {
    markCaughtUp = () => {
      caughtUp = true;
      resolve();
    };
  });
  if (pending.size === 0) markCaughtUp();

  const consumer: Consumer = groupConsumer(kafka, `orrery-api-${randomUUID()}`);
  await consumer.connect();
  await consumer.subscribe({ topics: [topic] });
  await consumer.run({
    eachBatch: async ({ batch }) => {
      for (const message of batch.messages) {
        if (!message.value) continue;
        try {
          const event = orgEventFromWire(await decodeValue(deps.registry, message.value));
          if (event) directory.apply(event);
        } catch (error) {
          deps.logger.error(
            { err: error, offset: message.offset },
            'org follower: undecodable event skipped',
          );
        }
      }
      const end = pending.get(batch.partition);
      if (end !== undefined && BigInt(batch.lastOffset()) + 1n >= end) {
        pending.delete(batch.partition);
        if (pending.size === 0 && !caughtUp) markCaughtUp();
      }
    },
  });
  return {
    caughtUp: caughtUpPromise,
    isCaughtUp: () => caughtUp,
    stop: () => consumer.disconnect(),
  };
}
