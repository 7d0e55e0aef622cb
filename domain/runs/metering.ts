import { hardwareMeter } from '../billing/price.ts';
import type { UsageRecorded } from '../usage/events.ts';
import type { Run } from './run.ts';

// A run's time on hardware into the usage stream (issue 16: metered per second into the same
// usage and daily billing pipeline as titles). The runner records the seconds so far every
// stretch of `meterStretchSeconds`, and the rest when the run ends; each stretch is one
// UsageRecorded whose request id is the run's id and the stretch's first second, so the same
// stretch published again (a retry, a redelivery, recovery after a restart) counts once, as a
// request published twice does (domain/usage/identity.ts).

/** How often a running run's seconds are recorded: the most a crash of its API process can leave unbilled. */
export const meterStretchSeconds = 30;

/** The stretches from `from` to `to` seconds, cut at each multiple of `stretch`: `[[0, 30], [30, 42]]`. */
export function stretches(from: number, to: number, stretch = meterStretchSeconds): [number, number][] {
  const out: [number, number][] = [];
  let at = from;
  while (at < to) {
    const end = Math.min(to, (Math.floor(at / stretch) + 1) * stretch);
    out.push([at, end]);
    at = end;
  }
  return out;
}

/** The usage event of one stretch of a run: `[from, to)` seconds since its command started. */
export function stretchUsage(
  run: Pick<Run, 'id' | 'orgId' | 'size' | 'placedBy'>,
  [from, to]: [number, number],
  at: { eventId: string; now: Date },
): UsageRecorded {
  return {
    type: 'UsageRecorded',
    eventId: at.eventId,
    orgId: run.orgId,
    occurredAt: at.now,
    requestId: `${run.id}:${from}`,
    keyId: run.placedBy.kind === 'key' ? run.placedBy.keyId : '',
    model: hardwareMeter(run.size),
    endpoint: 'runs',
    inputTokens: 0,
    outputTokens: 0,
    fallback: false,
    latencyMs: 0,
    seconds: to - from,
  };
}
