// The answer's `text` and `fallback` (spec 000, Answer; Output checks; Fallback text): the
// model's line is cleaned, checked against its kind's table, and replaced by the fallback text
// when a check fails. A missing line (the model answered without content) fails like any other.
import { type CheckResult, checkPreview, checkTitle, cleanPreview, cleanTitle } from './checks.ts';
import { fallbackText } from './fallback.ts';
import type { PreviewRequest, TitleRequest } from './requests.ts';

export type AnswerInput =
  | { task: 'title'; request: TitleRequest; modelLine: string | null }
  | { task: 'preview'; request: PreviewRequest; modelLine: string | null };

export interface DecidedAnswer {
  text: string;
  fallback: boolean;
  /** The check that failed, for logs and the request list; absent when the line passed. */
  failed?: string;
}

const tasks = {
  title: { clean: cleanTitle, check: checkTitle },
  preview: { clean: cleanPreview, check: checkPreview },
} as const satisfies Record<
  AnswerInput['task'],
  { clean: (raw: string) => string; check: (line: string) => CheckResult }
>;

export function decideAnswer(input: AnswerInput): DecidedAnswer {
  const { clean, check } = tasks[input.task];
  const line = clean(input.modelLine ?? '');
  const result = check(line);
  if (result.ok) return { text: line, fallback: false };
  const fallback = input.task === 'title' ? fallbackText({ task: 'title' }) : fallbackText(input);
  return { text: fallback, fallback: true, failed: result.failed };
}
