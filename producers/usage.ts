import type { UsageRecorded } from '../domain/usage/events.ts';
import { usageToWire } from '../schemas/events/usage-mapping.ts';
import type { EventProducer, SendOptions } from './producer.ts';

/** Usage is keyed by org: one org's requests stay in order for its daily rollups. */
export function publishUsage(
  producer: EventProducer,
  events: UsageRecorded[],
  options: SendOptions = {},
): Promise<void> {
  return producer.send(
    'usage',
    events.map((event) => ({ key: event.orgId, value: usageToWire(event) })),
    options,
  );
}
