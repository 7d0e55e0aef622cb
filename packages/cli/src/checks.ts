import { type Path, parsePath, valueAt } from './paths.ts';

// `run --check '<expression>'` (spec 002, "Run result and checks"): a comparison judged against the
// run's result. Exit code says whether the run worked, checks whether the experiment passed: the
// two are independent. An expression is parsed by this small grammar, never evaluated as code:
//
//   check    = path operator literal          (spaces allowed around the operator)
//   path     = segment ("." segment)*         (letters, digits, _ and -; digits index an array)
//   operator = "==" | "!=" | "<" | "<=" | ">" | ">="
//   literal  = number | string | "true" | "false" | "null"
//   number   = a JSON number (-1, 0.9, 1e-3)
//   string   = a JSON string in double quotes, or any text without ' in single quotes
//
// `<`, `<=`, `>` and `>=` compare numbers, so they take a number; `==` and `!=` compare a value
// with the literal exactly (an object or array never equals one).

export const operators = ['==', '!=', '<=', '>=', '<', '>'] as const;
export type Operator = (typeof operators)[number];
export type Literal = number | string | boolean | null;

export interface Check {
  /** The expression as written, trimmed: how the check is named in the output. */
  name: string;
  path: Path;
  operator: Operator;
  expected: Literal;
}

/**
 * What a check found: `passed`, `failed` (the value is there and does not compare, or is not a
 * number for `<`…), `missing` (the result has no value at the path), `no_result` (the run kept no
 * result to judge: it wrote none, or not a JSON object, or it did not finish).
 */
export const verdicts = ['passed', 'failed', 'missing', 'no_result'] as const;
export type Verdict = (typeof verdicts)[number];

export interface Judged {
  name: string;
  verdict: Verdict;
  path: string;
  operator: Operator;
  expected: Literal;
  /** The value at the path, when there is one. */
  actual?: unknown;
  /** Why a check did not pass, in words. */
  reason?: string;
}

const number = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const ordering = new Set<Operator>(['<', '<=', '>', '>=']);

function parseLiteral(text: string): { ok: true; value: Literal } | { ok: false } {
  if (text === 'true') return { ok: true, value: true };
  if (text === 'false') return { ok: true, value: false };
  if (text === 'null') return { ok: true, value: null };
  if (number.test(text)) return { ok: true, value: Number(text) };
  if (text.length >= 2 && text.startsWith("'") && text.endsWith("'") && !text.slice(1, -1).includes("'"))
    return { ok: true, value: text.slice(1, -1) };
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) {
    try {
      // A JSON string literal read as data: JSON.parse evaluates nothing.
      const value: unknown = JSON.parse(text);
      if (typeof value === 'string') return { ok: true, value };
    } catch {
      // Not a JSON string: refused below.
    }
  }
  return { ok: false };
}

/** A check, or the reason the text is not one (the caller names the flag). */
export function parseCheck(text: string): { ok: true; check: Check } | { ok: false; reason: string } {
  const name = text.trim();
  const example = "write a path, a comparison and a value, as in 'metrics.accuracy >= 0.9'";
  const pathEnd = name.search(/[^A-Za-z0-9_.-]/);
  if (pathEnd <= 0) return { ok: false, reason: `'${name}' has no comparison: ${example}` };
  const path = parsePath(name.slice(0, pathEnd));
  if (!path.ok) return { ok: false, reason: path.reason };
  const rest = name.slice(pathEnd).trimStart();
  const operator = operators.find((candidate) => rest.startsWith(candidate));
  if (!operator)
    return {
      ok: false,
      reason: `'${name}' has no comparison after ${name.slice(0, pathEnd)}: use one of ${operators.join(' ')} (${example})`,
    };
  const literalText = rest.slice(operator.length).trim();
  const literal = parseLiteral(literalText);
  if (!literal.ok)
    return {
      ok: false,
      reason: `'${literalText}' is not a value: write a number, a quoted string, true, false or null`,
    };
  if (ordering.has(operator) && typeof literal.value !== 'number')
    return { ok: false, reason: `${operator} compares numbers: '${literalText}' is not one` };
  return { ok: true, check: { name, path: path.path, operator, expected: literal.value } };
}

function compare(operator: Operator, actual: unknown, expected: Literal): boolean {
  switch (operator) {
    case '==':
      return actual === expected;
    case '!=':
      return actual !== expected;
    case '<':
      return (actual as number) < (expected as number);
    case '<=':
      return (actual as number) <= (expected as number);
    case '>':
      return (actual as number) > (expected as number);
    case '>=':
      return (actual as number) >= (expected as number);
    default: {
      const never: never = operator;
      throw new Error(`unknown operator ${never}`);
    }
  }
}

/** Judges a check against the result, or against none (`none` says why there is none). */
export function judge(check: Check, result: { value: unknown } | { none: string }): Judged {
  const base = {
    name: check.name,
    path: check.path.join('.'),
    operator: check.operator,
    expected: check.expected,
  };
  if ('none' in result) return { ...base, verdict: 'no_result', reason: result.none };
  const found = valueAt(result.value, check.path);
  if (!found.found) return { ...base, verdict: 'missing', reason: `the result has no value at ${base.path}` };
  const actual = found.value;
  if (ordering.has(check.operator) && typeof actual !== 'number')
    return { ...base, verdict: 'failed', actual, reason: `${check.operator} compares numbers` };
  const passed = compare(check.operator, actual, check.expected);
  return passed ? { ...base, verdict: 'passed', actual } : { ...base, verdict: 'failed', actual };
}
