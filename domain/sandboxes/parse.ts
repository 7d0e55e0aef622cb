import type { z } from 'zod';
import {
  describeType,
  type Issue,
  type ParseResult,
  parseRequest,
  quoteList,
  valueAt,
  type Wording,
} from '../params.ts';

// The sandbox surface's words for a refused request (spec 002, "Errors"): the first zod issue as
// the `param` and `message` of a 422 invalid_request, through the one parser of every surface
// (domain/params.ts). `param` is the path in the spec's notation (`metadata.env`, `urls[2]`,
// `count`; empty for the body itself). Fields with a rule of their own carry their message in the
// schema (fields.ts); the rest get a plain one here from the issue's code.

/** The per-parse message of issues whose schema has none, replaced below once the path is known. */
const plain = '\u0000plain';

export function parseSandboxBody<S extends z.ZodType>(schema: S, input: unknown): ParseResult<z.output<S>> {
  return parseRequest(schema, input, sandboxWording, { error: () => plain, reportInput: true });
}

/** `input` is the whole request, to tell a missing discriminator from a wrong one. */
const sandboxWording: Wording = {
  body: 'Send a JSON object.',
  issue(issue, { param, input }) {
    if (param === '') return 'Send a JSON object.';
    const field = `\`${param}\``;
    if (issue.code === 'unrecognized_keys')
      return `Unknown field ${field}: remove it, or check its spelling.`;
    const own = issue.code === 'invalid_key' ? issue.issues[0]?.message : issue.message;
    const detail = own !== undefined && own !== plain ? own : plainDetail(issue);
    if (isMissing(issue, input)) return `Missing ${field}: ${detail}.`;
    return `Invalid ${field}: ${detail}.`;
  },
};

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
