import { describe, expect, it } from 'vitest';
import { judge, parseCheck } from '../src/checks.ts';
import { parsePath, valueAt } from '../src/paths.ts';

// `--check` expressions and result paths are read by a small grammar, never evaluated as code.

describe('parseCheck', () => {
  it.each([
    ['metrics.accuracy >= 0.9', ['metrics', 'accuracy'], '>=', 0.9],
    ['metrics.loss<0.25', ['metrics', 'loss'], '<', 0.25],
    ['epochs == 3', ['epochs'], '==', 3],
    ['delta > -1e-3', ['delta'], '>', -0.001],
    ['model.name == "small \\"v2\\""', ['model', 'name'], '==', 'small "v2"'],
    ["model.name != 'tiny'", ['model', 'name'], '!=', 'tiny'],
    ['ok == true', ['ok'], '==', true],
    ['error == null', ['error'], '==', null],
    ['layers.0.units <= 128', ['layers', '0', 'units'], '<=', 128],
    ['  f1-score >= 0.5  ', ['f1-score'], '>=', 0.5],
  ])('%s', (text, path, operator, expected) => {
    const parsed = parseCheck(text);
    expect(parsed).toEqual({ ok: true, check: { name: text.trim(), path, operator, expected } });
  });

  it.each([
    ['metrics.accuracy', 'has no comparison'],
    ['>= 0.9', 'has no comparison'],
    ['metrics..accuracy >= 0.9', 'empty segment'],
    ['metrics.accuracy =~ 0.9', 'has no comparison after metrics.accuracy'],
    ['metrics.accuracy >= high', "'high' is not a value"],
    ['metrics.accuracy >= 0.9; rm -rf /', "'0.9; rm -rf /' is not a value"],
    ['metrics.accuracy >= process.exit(1)', 'is not a value'],
    ["name > 'a'", '> compares numbers'],
    ['metrics.accuracy >= ', "'' is not a value"],
    ['constructor.constructor("return 1")() == 1', 'has no comparison'],
  ])('refuses %s', (text, reason) => {
    const parsed = parseCheck(text);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.reason).toContain(reason);
  });
});

describe('judge', () => {
  const check = (text: string) => {
    const parsed = parseCheck(text);
    if (!parsed.ok) throw new Error(parsed.reason);
    return parsed.check;
  };
  const result = { value: { metrics: { accuracy: 0.93, loss: 0.4 }, name: 'v2', layers: [{ units: 64 }] } };

  it.each([
    ['metrics.accuracy >= 0.9', 'passed', 0.93],
    ['metrics.accuracy >= 0.95', 'failed', 0.93],
    ['metrics.loss < 0.5', 'passed', 0.4],
    ['name == "v2"', 'passed', 'v2'],
    ['name != "v2"', 'failed', 'v2'],
    ['layers.0.units == 64', 'passed', 64],
    ['name > 1', 'failed', 'v2'],
    ['metrics == 1', 'failed', { accuracy: 0.93, loss: 0.4 }],
  ])('%s: %s', (text, verdict, actual) => {
    expect(judge(check(text), result)).toMatchObject({ name: text, verdict, actual });
  });

  it('says `missing` for a path the result lacks, `no_result` when there is no result', () => {
    expect(judge(check('metrics.f1 > 0.5'), result)).toEqual({
      name: 'metrics.f1 > 0.5',
      verdict: 'missing',
      path: 'metrics.f1',
      operator: '>',
      expected: 0.5,
      reason: 'the result has no value at metrics.f1',
    });
    expect(judge(check('a == 1'), { none: 'the run wrote no result' })).toMatchObject({
      verdict: 'no_result',
      reason: 'the run wrote no result',
    });
  });
});

describe('paths', () => {
  it('reads objects by name and arrays by index, own fields only', () => {
    const root = { a: { b: [10, { c: 'x' }] } };
    expect(valueAt(root, ['a', 'b', '1', 'c'])).toEqual({ found: true, value: 'x' });
    expect(valueAt(root, ['a', 'b', '2'])).toEqual({ found: false });
    expect(valueAt(root, ['a', 'constructor'])).toEqual({ found: false });
    expect(valueAt(root, ['a', 'b', 'length'])).toEqual({ found: false });
    expect(valueAt({ n: null }, ['n'])).toEqual({ found: true, value: null });
  });

  it.each(['', 'a.', '.a', 'a b', 'a[0]'])('refuses %j', (text) => {
    expect(parsePath(text).ok).toBe(false);
  });
});
