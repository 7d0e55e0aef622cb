// Where an OTLP request's time goes in the API: its ingest phase histogram
// (orrery_otlp_ingest_phase_seconds), read from /metrics before and after a run.
import { groupPhases } from '../api/otlp/org-admissions.ts';

export type IngestPhases = Map<string, { sum: number; count: number }>;

/**
 * Not a phase: the endpoint's requests answered 200, from their arrival to their answer
 * (orrery_http_request_duration_seconds), which the phases and the waits between them add up to.
 */
const answered = 'answered';

/** The API's ingest phase histogram, and its answered OTLP requests: seconds summed and counted. */
export async function ingestPhases(baseUrl: string): Promise<IngestPhases> {
  const text = await (await fetch(new URL('/metrics', baseUrl))).text();
  const phases: IngestPhases = new Map();
  const add = (phase: string, part: string, value: string) => {
    const entry = phases.get(phase) ?? { sum: 0, count: 0 };
    entry[part as 'sum' | 'count'] = Number(value);
    phases.set(phase, entry);
  };
  for (const [, part, phase, value] of text.matchAll(
    /^orrery_otlp_ingest_phase_seconds_(sum|count)\{phase="([a-z_]+)"\} (\S+)$/gm,
  ))
    add(phase!, part!, value!);
  for (const [, part, value] of text.matchAll(
    /^orrery_http_request_duration_seconds_(sum|count)\{method="POST",route="\/api\/otlp\/v1\/traces",status="200"\} (\S+)$/gm,
  ))
    add(answered, part!, value!);
  return phases;
}

/** One phase's seconds and count between two readings. */
function between(before: IngestPhases, after: IngestPhases, phase: string): { sum: number; count: number } {
  const reading = after.get(phase) ?? { sum: 0, count: 0 };
  const earlier = before.get(phase) ?? { sum: 0, count: 0 };
  return { sum: reading.sum - earlier.sum, count: reading.count - earlier.count };
}

/** Seconds from a request's arrival to its answer, on average between two readings; undefined if none was answered. */
export function meanAnswerSeconds(before: IngestPhases, after: IngestPhases): number | undefined {
  const { sum, count } = between(before, after, answered);
  return count === 0 ? undefined : sum / count;
}

/**
 * The mean time of each phase between two readings, as one line, with how many requests a group
 * admitted and how long a group held its org's line: groups × that time, over the run's seconds,
 * is how busy the line was (near 1 with one org, the line and not the cores is the limit).
 */
export function phasesLine(before: IngestPhases, after: IngestPhases): string {
  const means = [...after.keys()]
    .filter((phase) => phase !== answered)
    .map((phase) => {
      const { sum, count } = between(before, after, phase);
      return `${phase} ${count === 0 ? '-' : ((sum / count) * 1000).toFixed(1)} ms`;
    });
  const groups = between(before, after, 'lease').count;
  const line =
    groups === 0
      ? ''
      : `; ${groups} groups of ${(between(before, after, 'decode').count / groups).toFixed(2)} requests, each holding its org's line ${((groupPhases.reduce((sum, phase) => sum + between(before, after, phase).sum, 0) / groups) * 1000).toFixed(1)} ms`;
  return `API time per request (read, decode, normalize) and per admitted group (the rest), mean: ${means.join(', ')}${line}`;
}
