import { randomUUID } from 'node:crypto';
import { decide } from '../domain/runs/decide.ts';
import type { RunEvent } from '../domain/runs/events.ts';
import { meterStretchSeconds, stretches, stretchUsage } from '../domain/runs/metering.ts';
import type { Run } from '../domain/runs/run.ts';
import { runEventToWire } from '../schemas/events/run-mapping.ts';
import type { EventProducer } from './producer.ts';
import { publishUsage } from './usage.ts';

/** Run events are keyed by run, so one run's history (its output too) stays in order on one partition. */
export function publishRunEvents(producer: EventProducer, events: RunEvent[]): Promise<void> {
  return producer.send(
    'run',
    events.map((event) => ({ key: event.runId, value: runEventToWire(event) })),
  );
}

/** The usage of a run's seconds from `from` to `to`, a stretch at a time (domain/runs/metering.ts). */
export async function publishRunUsage(
  producer: EventProducer,
  run: Run,
  [from, to]: [number, number],
  at: { now: Date; stretchSeconds?: number },
): Promise<void> {
  const events = stretches(from, to, at.stretchSeconds ?? meterStretchSeconds).map((stretch) =>
    stretchUsage(run, stretch, { eventId: randomUUID(), now: at.now }),
  );
  if (events.length > 0) await publishUsage(producer, events);
}

/**
 * A run whose carrier is gone (its host process restarted, or its host lost for good) is finished
 * as failed, saying why, billed the seconds recorded (`RunMetered`), never the time since; the
 * recorded stretches' usage is published again, in case the last was cut short (its ids make that
 * count once). Answers whether it ended it (false: it had ended already).
 */
export async function recordRunLost(
  producer: EventProducer,
  run: Run,
  failure: string,
  at: { now: Date; stretchSeconds?: number },
): Promise<boolean> {
  const command = {
    type: 'FailRun',
    failure,
    lost: true,
    eventId: randomUUID(),
    runId: run.id,
    orgId: run.orgId,
    now: at.now,
  } as const;
  const events = decide(command, run);
  if (events.length === 0) return false;
  await publishRunEvents(producer, events);
  await publishRunUsage(producer, run, [0, run.recordedSeconds], at);
  return true;
}
