// Where an OTLP request's time goes in the API: its ingest phase histogram
// (orrery_otlp_ingest_phase_seconds), read from /metrics before and after a run.
import { groupPhases } from '../api/otlp/org-admissions.ts';

export type IngestPhases = Map<string, { sum: number; count: number }>;

/** The API's ingest phase histogram: seconds summed and counted per phase. */
export async function ingestPhases(baseUrl: string): Promise<IngestPhases> {
  const text = await (await fetch(new URL('/metrics', baseUrl))).text();
  const phases: IngestPhases = new Map();
  for (const [, part, phase, value] of text.matchAll(
    /^orrery_otlp_ingest_phase_seconds_(sum|count)\{phase="([a-z_]+)"\} (\S+)$/gm,
  )) {
    const entry = phases.get(phase!) ?? { sum: 0, count: 0 };
    entry[part as 'sum' | 'count'] = Number(value);
    phases.set(phase!, entry);
  }
  return phases;
}

/**
 * The mean time of each phase between two readings, as one line, with how many requests a group
 * admitted and how long a group held its org's line: groups × that time, over the run's seconds,
 * is how busy the line was (near 1 with one org, the line and not the cores is the limit).
 */
export function phasesLine(before: IngestPhases, after: IngestPhases): string {
  const between = (phase: string) => {
    const reading = after.get(phase) ?? { sum: 0, count: 0 };
    const earlier = before.get(phase) ?? { sum: 0, count: 0 };
    return { sum: reading.sum - earlier.sum, count: reading.count - earlier.count };
  };
  const means = [...after.keys()].map((phase) => {
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
