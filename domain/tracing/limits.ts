// Trace ingestion's limits: the spec's Limits table (001, "Limits"), the one place its numbers
// are written. The body reader (api/otlp/body.ts), the cuts (truncation.ts, within-limits.ts),
// admission (admission.ts) and retention (jobs/span-retention.ts) read them from here.

export const KiB = 1024;
export const MiB = 1024 * KiB;
export const GiB = 1024 * MiB;

/** The spec's Limits table, row by row; sizes in bytes. */
export const limits = {
  /** Request body, as sent and uncompressed. */
  requestBytesSent: 4 * MiB,
  requestBytesUncompressed: 16 * MiB,
  /** Spans and stored span data per org per UTC month. */
  monthlySpans: 1_000_000,
  monthlyBytes: 5 * GiB,
  spansPerTrace: 10_000,
  spanNameBytes: 256,
  /** Input and output, each, encoded as JSON. */
  inputOutputBytes: 128 * KiB,
  /** Other string values. */
  stringBytes: 8 * KiB,
  /** Per span, per event (and, our choice, per link). */
  attributesPerSpan: 128,
  eventsPerSpan: 128,
  linksPerSpan: 32,
  resourceAttributesBytes: 4 * KiB,
  /** Whole span. */
  spanBytes: 384 * KiB,
  retentionDays: 30,
} as const;

/** The limits' shape, so tests and callers may pass other values. */
export type Limits = { readonly [K in keyof typeof limits]: number };
