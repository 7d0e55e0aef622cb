// Where an OTLP request's time goes in the API: its ingest phase histogram
// (orrery_otlp_ingest_phase_seconds), read from /metrics before and after a run.

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

/** The mean time of each phase between two readings, as one line. */
export function phasesLine(before: IngestPhases, after: IngestPhases): string {
  const means = [...after].map(([phase, reading]) => {
    const earlier = before.get(phase) ?? { sum: 0, count: 0 };
    const count = reading.count - earlier.count;
    return `${phase} ${count === 0 ? '-' : (((reading.sum - earlier.sum) / count) * 1000).toFixed(1)} ms`;
  });
  return `API time per request (read, decode, normalize) and per admitted group (the rest), mean: ${means.join(', ')}`;
}
