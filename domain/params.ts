// What every surface's 422 `invalid_request` shares (000 and 002, "Errors"): the `param` path in
// the specs' notation, and the words for what was expected. Each surface words its own messages.

/** A raw input parsed into a typed value, or refused naming the field at fault (`param`). */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; param: string; message: string };

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
