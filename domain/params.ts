import type { z } from 'zod';

// What every surface's 422 `invalid_request` shares (000 and 002, "Errors"): one function that
// parses a request part and turns zod's refusal into the `param` path in the specs' notation and a
// message, and the words for what was expected. Each surface words its own messages (`Wording`).

/** A raw input parsed into a typed value, or refused naming the field at fault (`param`). */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; param: string; message: string };

export type Issue = z.core.$ZodIssue;

/** How a surface words a refused field; each spec words its own. */
export interface Wording {
  /** Said when zod names no issue (it always names one): the body as a whole. */
  body: string;
  /**
   * The message for the first issue. `param` is its path in the specs' notation (`''` for the
   * whole input), `value` what was sent there, `input` the whole request part.
   */
  issue(issue: Issue, at: { param: string; value: unknown; input: unknown }): string;
}

/**
 * Parses a request part (body, query, path) with its schema: the value, or the first issue as
 * `param` and the surface's message. The one translation of a zod refusal into a 422, for every
 * surface; an unknown field is named at its own path, not at the object holding it.
 */
export function parseRequest<S extends z.ZodType>(
  schema: S,
  input: unknown,
  wording: Wording,
  options?: z.core.ParseContext<z.core.$ZodIssue>,
): ParseResult<z.output<S>> {
  const result = schema.safeParse(input, options);
  if (result.success) return { ok: true, value: result.data };
  const first = result.error.issues[0];
  if (first === undefined) return { ok: false, param: '', message: wording.body };
  const issue = meantOption(first);
  const path = issuePath(issue);
  const param = formatParam(path);
  return { ok: false, param, message: wording.issue(issue, { param, value: valueAt(input, path), input }) };
}

/**
 * A union refused as a whole is named at the option the value was meant for, when only one
 * option got past the value's type (`command: ["ls", 1]` is an array of words with a bad word
 * at `command[1]`, not "neither a string nor an array"); otherwise the union speaks for itself.
 */
function meantOption(issue: Issue): Issue {
  if (issue.code !== 'invalid_union') return issue;
  const deeper = issue.errors
    .map((issues) => issues[0])
    .filter((inner) => inner !== undefined && !(inner.code === 'invalid_type' && inner.path.length === 0));
  const inner = deeper.length === 1 ? deeper[0] : undefined;
  return inner ? meantOption({ ...inner, path: [...issue.path, ...inner.path] }) : issue;
}

/** An unknown field is reported at its own path, not at the object holding it. */
function issuePath(issue: Issue): PropertyKey[] {
  if (issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined)
    return [...issue.path, issue.keys[0]];
  return [...issue.path];
}

const identifier = /^[A-Za-z_$][\w$]*$/;

/** `['messages', 0, 'content']` → `messages[0].content`; other keys quoted: `env["my-key"]`. */
export function formatParam(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && identifier.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/** The value at a path of the request as sent, to tell a field left out from a wrong one. */
export function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

const typeNames: Record<string, string> = {
  int: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: '`true` or `false`',
  array: 'an array',
  object: 'an object',
  record: 'an object',
  null: 'null',
};

/** zod's expected type in words: `an object`, `a string`, … */
export function describeType(expected: string): string {
  return typeNames[expected] ?? `a ${expected}`;
}

/** Allowed values as a list of code spans: `` `a`, `b` ``. */
export const quoteList = (values: readonly unknown[]): string =>
  values.map((v) => `\`${String(v)}\``).join(', ');
