// How fast this machine's cores run now, read beside a benchmark's figures. On the same 2-core
// machine, one night, with nothing else running, bench/normalize's CPU time per span moved by
// 1.45× from one hour to the next (the host's other tenants, not steal): figures from two windows
// compare only beside this reading, taken before and after each run.
import { normalizeRequest } from '../api/otlp/ingest.ts';
import type { OtlpTraceRequest } from '../domain/tracing/otlp.ts';
import { llmRequest, llmSpans } from './llm-spans.ts';
import { threadCpuMs } from './process-cpu.ts';

const batchSpans = 512;
/**
 * About 300 ms each, after as long a warm-up for the JIT: read again and again in one quiet
 * minute, the figure moved by about a tenth, against the four tenths seen between two windows.
 */
const rounds = 60;
const warmupRounds = 60;

let batch: OtlpTraceRequest | undefined;

function spansBatch(): OtlpTraceRequest {
  batch ??= llmRequest(llmSpans(batchSpans));
  return batch;
}

/** This thread's CPU time per LLM span normalized (bench/normalize's middle phase), in µs. */
export function speedCheck(): number {
  const sent = spansBatch();
  for (let round = 0; round < warmupRounds; round += 1) normalizeRequest(sent);
  const started = threadCpuMs();
  for (let round = 0; round < rounds; round += 1) normalizeRequest(sent);
  return ((threadCpuMs() - started) * 1000) / (rounds * batchSpans);
}

/** The readings before and after a run, as one line. */
export function speedLine(before: number, after: number): string {
  return `speed check (normalizing an LLM span, CPU time; lower is a faster window): ${before.toFixed(1)} µs before the run, ${after.toFixed(1)} µs after`;
}
