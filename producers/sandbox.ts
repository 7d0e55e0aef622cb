import type { SandboxEvent } from '../domain/sandboxes/events.ts';
import { sandboxEventToWire } from '../schemas/events/sandbox-mapping.ts';
import type { EventProducer } from './producer.ts';

/** Sandbox events are keyed by sandbox, so one sandbox's history stays in order on one partition. */
export function publishSandboxEvents(producer: EventProducer, events: SandboxEvent[]): Promise<void> {
  return producer.send(
    'sandbox',
    events.map((event) => ({ key: event.sandboxId, value: sandboxEventToWire(event) })),
  );
}
