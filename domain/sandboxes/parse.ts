import type { z } from 'zod';
import { describeType, formatParam, quoteList, valueAt } from '../params.ts';

// Turning the first zod issue of a request into the `param` and `message` of a 422
// invalid_request (spec, "Errors"). `param` is the path in the spec's notation (`metadata.env`,
// `urls[2]`, `count`; empty for the body itself). Fields with a rule of their own carry their
// message in the schema (fields.ts); the rest get a plain one here from the issue's code.

import type { ParseResult } from '../params.ts';

export type { ParseResult };

/** The per-parse message of issues whose schema has none, replaced below once the path is known. */
const plain = '\u0000plain';

export function parseSandboxBody<S extends z.ZodType>(schema: S, input: unknown): ParseResult<z.output<S>> {
  const result = schema.safeParse(input, { error: () => plain, reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  if (issue === undefined) return { ok: false, param: '', message: 'Send a JSON object.' };
  return { ok: false, ...describeIssue(issue, input) };
}

type Issue = z.core.$ZodIssue;

/** `input` is the whole request, to tell a missing discriminator from a wrong one. */
export function describeIssue(issue: Issue, input: unknown): { param: string; message: string } {
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
  const param = formatParam(path);
  if (param === '') return { param, message: 'Send a JSON object.' };
  const field = `\`${param}\``;
  if (issue.code === 'unrecognized_keys')
    return { param, message: `Unknown field ${field}: remove it, or check its spelling.` };
  const own = issue.code === 'invalid_key' ? issue.issues[0]?.message : issue.message;
  const detail = own !== undefined && own !== plain ? own : plainDetail(issue);
  if (isMissing(issue, input)) return { param, message: `Missing ${field}: ${detail}.` };
  return { param, message: `Invalid ${field}: ${detail}.` };
}

/** A required field left out: a type error on nothing, a union's discriminator or a refinement's field not sent. */
function isMissing(issue: Issue, input: unknown): boolean {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined;
    case 'invalid_union':
      return valueAt(input, issue.path) === undefined;
    case 'custom':
      return issue.input === undefined && valueAt(input, issue.path) === undefined;
    default:
      return false;
  }
}

/** What to send instead, for issues whose schema has no message of its own. */
function plainDetail(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `send ${describeType(issue.expected)}`;
    case 'invalid_value':
      return `send one of ${quoteList(issue.values)}`;
    case 'invalid_union':
      return 'options' in issue && Array.isArray(issue.options)
        ? `send one of ${quoteList(issue.options)}`
        : 'send a value of one of the accepted types';
    case 'too_small':
      return `send at least ${issue.minimum}${unit(issue.origin)}`;
    case 'too_big':
      return `send at most ${issue.maximum}${unit(issue.origin)}`;
    default:
      return 'check its format';
  }
}

function unit(origin: string): string {
  if (origin === 'string') return ' characters';
  if (origin === 'array') return ' items';
  return '';
}
