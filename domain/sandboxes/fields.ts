import { z } from 'zod';
import { textWithoutNul } from '../text.ts';
import type { Checked } from './checked.ts';

// Field schemas shared by the request schemas. Each field with a rule carries its own message,
// saying what to send; parse.ts puts "Missing `x`" or "Invalid `x`" in front of it.

export function intIn(min: number, max: number) {
  const rule = `send an integer from ${min} to ${max}`;
  return z.int(rule).min(min, rule).max(max, rule);
}

/** A string whose rule lives in a domain module as a `Checked` parser; its value is the parsed one. */
export function checkedString<T>(parse: (text: string) => Checked<T>) {
  return z.string().transform((text, ctx): T => {
    const checked = parse(text);
    if (checked.ok) return checked.value;
    ctx.issues.push({ code: 'custom', message: checked.message, input: text });
    return z.NEVER;
  });
}

const encoder = new TextEncoder();

export function utf8Length(text: string): number {
  return encoder.encode(text).length;
}

/**
 * Text for the desktop, measured in UTF-8 bytes as the spec's limits are ("up to 10,000 bytes").
 * Without NUL (domain/text.ts): `type` hands it to a process in the sandbox, and no key types one.
 */
export function textUpToBytes(maxBytes: number) {
  return textWithoutNul('send a string').refine((text) => utf8Length(text) <= maxBytes, {
    message: `send at most ${maxBytes.toLocaleString('en-US')} bytes of UTF-8 text`,
  });
}

/** Query-string booleans: `true` or `false` (a parsed `true`/`false` also passes). */
export const queryBoolean = z.preprocess(
  (value) => (value === 'true' ? true : value === 'false' ? false : value),
  z.boolean('send `true` or `false`'),
);

/** Query-string integers: digits only. */
export function queryIntIn(min: number, max: number) {
  return z.preprocess(
    (value) => (typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : value),
    intIn(min, max),
  );
}

export const absolutePath = z
  .string('send an absolute path, starting with `/`')
  .max(4096, 'send a path of at most 4,096 characters')
  .regex(/^\/[^\0]*$/, 'send an absolute path, starting with `/`');
