import type { RunEvent } from '../domain/runs/events.ts';
import { runEventToWire } from '../schemas/events/run-mapping.ts';
import type { EventProducer } from './producer.ts';

/** Run events are keyed by run, so one run's history (its output too) stays in order on one partition. */
export function publishRunEvents(producer: EventProducer, events: RunEvent[]): Promise<void> {
  return producer.send(
    'run',
    events.map((event) => ({ key: event.runId, value: runEventToWire(event) })),
  );
}
