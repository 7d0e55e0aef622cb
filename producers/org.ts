import type { OrgEvent } from '../domain/orgs/events.ts';
import { orgEventToWire } from '../schemas/events/org-mapping.ts';
import type { EventProducer } from './producer.ts';

/** Org events are keyed by org, so one org's history stays in order on one partition. */
export function publishOrgEvents(producer: EventProducer, events: OrgEvent[]): Promise<void> {
  return producer.send(
    'org',
    events.map((event) => ({ key: event.orgId, value: orgEventToWire(event) })),
  );
}
