import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { byEndpoint, type PreparedRequest } from '../api/inference/endpoints.ts';
import { askModel, type DeployedModel, UpstreamUnavailable } from '../api/inference/upstream.ts';
import type { InferenceEndpoint } from '../domain/usage/events.ts';
import { config } from '../platform/config.ts';
import { machineLine, percentile } from './machine.ts';
import { type CorpusEntry, countByKind, loadCorpus } from './quality/corpus.ts';
import { rouge1 } from './quality/overlap.ts';

// How good the titles and previews of a model are (issue 13): every request of the corpus
// (bench/quality/corpus/, written by us) goes through the service's own core, as the endpoint
// runs it (parse, render in the model's prompt style, ask the model, clean, check, fall back),
// one at a time against the served model. Per endpoint it prints the share of answers that pass
// the spec's output checks without falling back (the issue's bar: 80 % of titles, 70 % of
// previews on the default model), the checks that failed, and the model's time p50/p99; every
// answer goes to a Markdown file beside the reference line a person wrote.
// The model is the one the platform serves: the stack's default (`npm start` or
// `npm run stack -- start` runs it) unless ORRERY_MODELS names others.
//   npx tsx bench/quality.ts [--model smollm2-135m] [--endpoint titles|previews] [--per-kind 20]
//     [--half tuning|held-out]
// The corpus is split in two fixed halves, so a prompt tuned on one is judged on the other: within
// each group (the chats, each preview kind), in the order of the corpus files, the entries at even
// positions (0, 2, 4, …) are the tuning half and those at odd positions the held-out half. Tune
// with --half tuning; a whole run prints each half's figures beside the whole's.

const { values } = parseArgs({
  options: {
    model: { type: 'string' },
    endpoint: { type: 'string' },
    'per-kind': { type: 'string' },
    out: { type: 'string' },
    half: { type: 'string' },
  },
});

const served = config().inference.models;
const chosen = values.model === undefined ? served[0] : served.find((m) => m.name === values.model);
if (chosen?.baseUrl === undefined)
  throw new Error(
    `No deployed model ${values.model ?? ''} to ask: start the stack (npm start), or set ORRERY_MODELS (served: ${served.map((m) => m.name).join(', ') || 'none'})`,
  );
const model: DeployedModel = { ...chosen, baseUrl: chosen.baseUrl };
const endpoints = (values.endpoint === undefined ? ['titles', 'previews'] : [values.endpoint]).filter(
  (e): e is InferenceEndpoint => e === 'titles' || e === 'previews',
);
// A quick look while changing a prompt: the first N of each kind (chat, email, …) only.
const perKind = values['per-kind'] === undefined ? Number.POSITIVE_INFINITY : Number(values['per-kind']);
const halves = ['tuning', 'held-out'] as const;
type Half = (typeof halves)[number];
if (values.half !== undefined && !halves.includes(values.half as Half))
  throw new Error(`--half is tuning or held-out, not ${values.half}`);
const onlyHalf = values.half as Half | undefined;
const outFile = values.out ?? `bench/quality/answers-${model.name}.md`;

const corpus = loadCorpus();

interface Outcome {
  entry: CorpusEntry<unknown>;
  group: string;
  half: Half;
  prompt?: PreparedRequest['prompt'];
  line?: string | null;
  text?: string;
  failed?: string;
  error?: string;
  latencyMs?: number;
  inputTokens?: number;
  /** ROUGE-1 F1 of the model's own cleaned line (not the fallback) against the reference. */
  overlap: number;
}

async function run(
  endpoint: InferenceEndpoint,
  entry: CorpusEntry<unknown>,
  group: string,
  half: Half,
): Promise<Outcome> {
  const prepared = byEndpoint[endpoint].prepare(entry.request, model);
  try {
    const reply = await askModel(model, prepared.prompt);
    const decided = prepared.answer(reply.line);
    return {
      entry,
      group,
      half,
      overlap: decided.failed === undefined ? rouge1(decided.text, entry.reference) : 0,
      prompt: prepared.prompt,
      line: reply.line,
      text: decided.text,
      ...(decided.failed === undefined ? {} : { failed: decided.failed }),
      latencyMs: reply.latencyMs,
      inputTokens: reply.inputTokens,
    };
  } catch (error) {
    if (!(error instanceof UpstreamUnavailable)) throw error;
    return { entry, group, half, error: error.reason, overlap: 0 };
  }
}

function summary(endpoint: InferenceEndpoint, outcomes: Outcome[]): string[] {
  const answered = outcomes.filter((o) => o.error === undefined);
  const passed = answered.filter((o) => o.failed === undefined);
  const share = (n: number, of: number) => `${((100 * n) / Math.max(1, of)).toFixed(1)} %`;
  const overlap = (of: Outcome[]) =>
    (of.reduce((sum, o) => sum + o.overlap, 0) / Math.max(1, of.length)).toFixed(2);
  const reasons = new Map<string, number>();
  for (const o of outcomes) {
    const reason = o.error === undefined ? o.failed : `no answer (${o.error})`;
    if (reason !== undefined) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  const latency = answered.map((o) => o.latencyMs!).sort((a, b) => a - b);
  const tokens = answered.map((o) => o.inputTokens!).sort((a, b) => a - b);
  const groups = [...new Set(outcomes.map((o) => o.group))];
  const inHalves = halves.map((h) => outcomes.filter((o) => o.half === h)).filter((of) => of.length > 0);
  return [
    `${endpoint}: ${share(passed.length, outcomes.length)} pass without fallback (${passed.length} of ${outcomes.length}); overlap with the reference ${overlap(outcomes)} (ROUGE-1 F1, a fallback counts 0)`,
    ...(inHalves.length > 1
      ? inHalves.map((of) => {
          const ok = of.filter((o) => o.error === undefined && o.failed === undefined).length;
          return `  ${`${of[0]!.half} half`.padEnd(13)} ${share(ok, of.length).padStart(7)} (${ok} of ${of.length}), overlap ${overlap(of)}`;
        })
      : []),
    ...(groups.length > 1
      ? groups.map((g) => {
          const of = outcomes.filter((o) => o.group === g);
          const ok = of.filter((o) => o.error === undefined && o.failed === undefined).length;
          return `  ${g.padEnd(13)} ${share(ok, of.length).padStart(7)} (${ok} of ${of.length}), overlap ${overlap(of)}`;
        })
      : []),
    `  fallbacks: ${
      [...reasons]
        .sort((a, b) => b[1] - a[1])
        .map(([r, n]) => `${r} ${n}`)
        .join(', ') || 'none'
    }`,
    `  model time: p50 ${percentile(latency, 50).toFixed(0)} ms, p99 ${percentile(latency, 99).toFixed(0)} ms; input tokens p50 ${percentile(tokens, 50)}, max ${tokens.at(-1)}`,
  ];
}

function answerRecord(o: Outcome): string {
  const verdict = o.error !== undefined ? `no answer: ${o.error}` : (o.failed ?? 'passed');
  return [
    `### ${o.entry.id} (${o.group}, ${o.half}): ${verdict}`,
    '',
    `- reference: ${o.entry.reference}`,
    `- model's line: ${o.line === undefined ? '—' : JSON.stringify(o.line)}`,
    `- text: ${o.text ?? '—'}`,
    `- ${o.latencyMs ?? '—'} ms, ${o.inputTokens ?? '—'} input tokens, prompt ${o.prompt?.version ?? '—'}, overlap ${o.overlap.toFixed(2)}`,
    '',
  ].join('\n');
}

console.log(machineLine());
console.log(`model: ${model.name} at ${model.baseUrl} (answer prefix: ${model.answerPrefix ? 'yes' : 'no'})`);
console.log(
  `corpus: ${JSON.stringify(countByKind(corpus))}${onlyHalf === undefined ? '' : `, ${onlyHalf} half only`}`,
);
const report: string[] = [`# Quality bench: ${model.name}, ${new Date().toISOString()}`, ''];
for (const endpoint of endpoints) {
  const entries: [CorpusEntry<unknown>, string][] =
    endpoint === 'titles'
      ? corpus.titles.map((e) => [e, 'chat'])
      : corpus.previews.map((e) => [e, e.request.kind]);
  const outcomes: Outcome[] = [];
  const started = performance.now();
  const seen = new Map<string, number>();
  const taken = new Map<string, number>();
  for (const [entry, group] of entries) {
    const position = seen.get(group) ?? 0;
    seen.set(group, position + 1);
    const half: Half = position % 2 === 0 ? 'tuning' : 'held-out';
    if (onlyHalf !== undefined && half !== onlyHalf) continue;
    const count = taken.get(group) ?? 0;
    if (count >= perKind) continue;
    taken.set(group, count + 1);
    outcomes.push(await run(endpoint, entry, group, half));
  }
  const seconds = (performance.now() - started) / 1000;
  const printed = [
    ...summary(endpoint, outcomes),
    `  ${outcomes.length} requests in ${seconds.toFixed(0)} s`,
  ];
  console.log(printed.join('\n'));
  report.push(`## ${endpoint}`, '', '```', ...printed, '```', '', ...outcomes.map(answerRecord));
  // After each endpoint: a run stopped during the second keeps the first's answers.
  writeFileSync(outFile, `${report.join('\n')}\n`);
  console.log(`answers: ${outFile}`);
}
