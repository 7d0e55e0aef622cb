import type { PersonEvent } from '../domain/people/events.ts';
import { personEventToWire } from '../schemas/events/person-mapping.ts';
import type { EventProducer } from './producer.ts';

/** Person events are keyed by person, so one person's history stays in order on one partition. */
export function publishPersonEvents(producer: EventProducer, events: PersonEvent[]): Promise<void> {
  return producer.send(
    'person',
    events.map((event) => ({ key: event.personId, value: personEventToWire(event) })),
  );
}
