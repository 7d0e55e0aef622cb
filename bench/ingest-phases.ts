// Where an OTLP request's time goes in the API: its ingest phase histogram
// (orrery_otlp_ingest_phase_seconds) and its time from arrival to answer
// (orrery_http_request_duration_seconds), read from /metrics before and after a run.
import { groupPhases } from '../api/otlp/org-admissions.ts';

interface Tally {
  sum: number;
  count: number;
}

/** The API's ingest phase histogram, and the OTLP requests it answered 200 (arrival to answer). */
export interface IngestPhases {
  phases: Map<string, Tally>;
  answered: Tally;
}

/** The two histograms as /metrics gives them now: seconds summed and counted. */
export async function ingestPhases(baseUrl: string): Promise<IngestPhases> {
  const text = await (await fetch(new URL('/metrics', baseUrl))).text();
  const phases = new Map<string, Tally>();
  for (const [, part, phase, value] of text.matchAll(
    /^orrery_otlp_ingest_phase_seconds_(sum|count)\{phase="([a-z_]+)"\} (\S+)$/gm,
  )) {
    const entry = phases.get(phase!) ?? { sum: 0, count: 0 };
    entry[part as keyof Tally] = Number(value);
    phases.set(phase!, entry);
  }
  const answered: Tally = { sum: 0, count: 0 };
  for (const [, part, value] of text.matchAll(
    /^orrery_http_request_duration_seconds_(sum|count)\{method="POST",route="\/api\/otlp\/v1\/traces",status="200"\} (\S+)$/gm,
  ))
    answered[part as keyof Tally] = Number(value);
  return { phases, answered };
}

const difference = (before: Tally | undefined, after: Tally | undefined): Tally => ({
  sum: (after?.sum ?? 0) - (before?.sum ?? 0),
  count: (after?.count ?? 0) - (before?.count ?? 0),
});

/** Seconds from a request's arrival to its answer, on average between two readings; undefined if none was answered. */
export function meanAnswerSeconds(before: IngestPhases, after: IngestPhases): number | undefined {
  const { sum, count } = difference(before.answered, after.answered);
  return count === 0 ? undefined : sum / count;
}

/**
 * The mean time of each phase between two readings, as one line, with how many requests a group
 * admitted and how long a group held its org's line: groups × that time, over the run's seconds,
 * is how busy the line was (near 1 with one org, the line and not the cores is the limit).
 */
export function phasesLine(before: IngestPhases, after: IngestPhases): string {
  const between = (phase: string) => difference(before.phases.get(phase), after.phases.get(phase));
  const means = [...after.phases.keys()].map((phase) => {
    const { sum, count } = between(phase);
    return `${phase} ${count === 0 ? '-' : ((sum / count) * 1000).toFixed(1)} ms`;
  });
  const groups = between('lease').count;
  const line =
    groups === 0
      ? ''
      : `; ${groups} groups of ${(between('decode').count / groups).toFixed(2)} requests, each holding its org's line ${((groupPhases.reduce((sum, phase) => sum + between(phase).sum, 0) / groups) * 1000).toFixed(1)} ms`;
  return `API time per request (read, decode, normalize) and per admitted group (the rest), mean: ${means.join(', ')}${line}`;
}
