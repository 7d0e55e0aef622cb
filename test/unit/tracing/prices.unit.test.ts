import { describe, expect, it } from 'vitest';
import { byModelKey, defaultPrices, lookupNames, priceOf } from '../../../domain/tracing/default-prices.ts';
import { modelKey } from '../../../domain/tracing/org-prices.ts';
import {
  costNanoUsd,
  type DefaultModelPrice,
  type ModelPrice,
  type TokenUsage,
  type UsdPerMillion,
  usdOfNano,
} from '../../../domain/tracing/prices.ts';

// Issue 50, item 1: a generation's cost at its model's price, and which price that is.

const usage = (counts: Partial<TokenUsage>): TokenUsage => ({
  inputTokens: null,
  outputTokens: null,
  cachedInputTokens: null,
  reasoningTokens: null,
  ...counts,
});

describe('costNanoUsd', () => {
  const everyKind: UsdPerMillion = { input: 2.5, cached_input: 1.25, output: 10, reasoning: 20 };

  it('prices the parts apart from the rest of their whole', () => {
    const tokens = usage({
      inputTokens: 1000,
      cachedInputTokens: 400,
      outputTokens: 500,
      reasoningTokens: 200,
    });
    // 600 × 2.5 + 400 × 1.25 + 300 × 10 + 200 × 20 = 9000 USD per million tokens: 9,000,000 nano-USD.
    expect(costNanoUsd(tokens, everyKind)).toBe(9_000_000);
  });

  it('prices a part without a price of its own as its whole', () => {
    const tokens = usage({
      inputTokens: 1000,
      cachedInputTokens: 400,
      outputTokens: 500,
      reasoningTokens: 200,
    });
    expect(costNanoUsd(tokens, { input: 2.5, output: 10 })).toBe(
      costNanoUsd(usage({ inputTokens: 1000, outputTokens: 500 }), { input: 2.5, output: 10 }),
    );
    expect(costNanoUsd(tokens, { input: 2.5, output: 10 })).toBe(7_500_000);
  });

  it('reads a part larger than its whole as counted apart from it (AI SDK 5 with Anthropic or Google)', () => {
    const tokens = usage({
      inputTokens: 1000,
      cachedInputTokens: 5000,
      outputTokens: 10,
      reasoningTokens: 99,
    });
    expect(costNanoUsd(tokens, everyKind)).toBe(
      costNanoUsd(
        usage({ inputTokens: 6000, cachedInputTokens: 5000, outputTokens: 109, reasoningTokens: 99 }),
        everyKind,
      ),
    );
  });

  it('is null when the span counted no tokens, whatever its parts say', () => {
    expect(costNanoUsd(usage({}), everyKind)).toBeNull();
    expect(costNanoUsd(usage({ cachedInputTokens: 40, reasoningTokens: 7 }), everyKind)).toBeNull();
  });

  it('counts a missing whole as none when the other is there', () => {
    expect(costNanoUsd(usage({ inputTokens: 1000 }), everyKind)).toBe(2_500_000);
    expect(costNanoUsd(usage({ outputTokens: 1000 }), everyKind)).toBe(10_000_000);
    expect(costNanoUsd(usage({ inputTokens: 0, outputTokens: 0 }), everyKind)).toBe(0);
  });

  it('is a whole number of nano-USD at every default price, so sums stay exact', () => {
    const tokens = usage({
      inputTokens: 1_234_567,
      cachedInputTokens: 456_789,
      outputTokens: 89_013,
      reasoningTokens: 12_345,
    });
    for (const { usdPerMillion } of defaultPrices) {
      expect(Number.isSafeInteger(costNanoUsd(tokens, usdPerMillion))).toBe(true);
    }
  });

  it('sums spans exactly where dollars as floats would not', () => {
    // One token at 0.1 USD per million is 100 nano-USD; three of them are 300, not 0.30000000000000004 × 1e-6.
    const one = costNanoUsd(usage({ inputTokens: 1, outputTokens: 0 }), { input: 0.1, output: 0.2 })!;
    expect(one + one + one).toBe(300);
    expect(usdOfNano(one + one + one)).toBe(0.0000003);
    // A single token of gpt-5-nano's cached input (0.005 USD per million) is still a whole 5.
    expect(
      costNanoUsd(usage({ inputTokens: 1, cachedInputTokens: 1 }), {
        input: 0.05,
        output: 0.4,
        cached_input: 0.005,
      }),
    ).toBe(5);
  });
});

describe('priceOf', () => {
  const orgPrice: ModelPrice = { model: 'gpt-4o', usdPerMillion: { input: 1, output: 4 } };

  it("takes the org's own price over the default", () => {
    expect(priceOf('gpt-4o', [orgPrice])).toEqual({ ...orgPrice, from: 'org' });
  });

  it('takes the default, with where it was read, when the org has no price for the model', () => {
    const found = priceOf('gpt-4o', [{ model: 'gpt-4.1', usdPerMillion: { input: 1, output: 4 } }]);
    expect(found).toMatchObject({
      model: 'gpt-4o',
      from: 'default',
      usdPerMillion: { input: 2.5, output: 10 },
    });
    expect(found?.from === 'default' && found.source).toMatch(/^https:\/\//);
  });

  it('prices a model of its own that only the org names', () => {
    const finetune: ModelPrice = { model: 'ft:gpt-4.1:acme::a1', usdPerMillion: { input: 3, output: 12 } };
    expect(priceOf('FT:gpt-4.1:acme::a1', [finetune])).toEqual({ ...finetune, from: 'org' });
  });

  it('has no price, not a price of zero, for a model neither names', () => {
    expect(priceOf('llama-3.3-70b-instruct', [orgPrice])).toBeUndefined();
    expect(priceOf('', [orgPrice])).toBeUndefined();
  });

  it.each([
    ['GPT-4o', 'gpt-4o'],
    ['openai/gpt-4o', 'gpt-4o'],
    ['gpt-4o-2024-08-06', 'gpt-4o'],
    ['gpt-4o-mini-2024-07-18', 'gpt-4o-mini'],
    ['o3-2025-04-16', 'o3'],
    ['claude-sonnet-4-20250514', 'claude-sonnet-4'],
    ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5'],
    ['anthropic/claude-haiku-4-5-20251001', 'claude-haiku-4-5'],
    ['claude-3-7-sonnet-latest', 'claude-3-7-sonnet'],
    ['us.anthropic.claude-sonnet-4-20250514-v1:0', 'claude-sonnet-4'],
    ['anthropic.claude-3-5-haiku-20241022-v1:0', 'claude-3-5-haiku'],
    ['claude-opus-4-1@20250805', 'claude-opus-4-1'],
    ['models/gemini-2.5-pro', 'gemini-2.5-pro'],
    ['publishers/google/models/gemini-2.5-flash', 'gemini-2.5-flash'],
  ])('finds %s under %s', (sent, listed) => {
    expect(priceOf(sent, [])).toMatchObject({ model: listed, from: 'default' });
  });

  it('prefers an exact name to one with its date removed', () => {
    expect(priceOf('gpt-4o-2024-05-13', [])).toMatchObject({ usdPerMillion: { input: 5, output: 15 } });
    expect(lookupNames('gpt-4o-2024-05-13')).toEqual(['gpt-4o-2024-05-13', 'gpt-4o']);
  });

  it("matches the org's prices the same way, and the org's wins even over an exact default", () => {
    expect(priceOf('openai/gpt-4o-2024-08-06', [orgPrice])).toEqual({ ...orgPrice, from: 'org' });
    expect(priceOf('gpt-4o-2024-05-13', [orgPrice])).toEqual({ ...orgPrice, from: 'org' });
  });

  it('does not take a longer name for a shorter one', () => {
    expect(priceOf('gpt-4o-mini', [orgPrice])).toMatchObject({ model: 'gpt-4o-mini', from: 'default' });
    expect(priceOf('gpt-4o-audio-preview', [orgPrice])).toBeUndefined();
  });

  it('reads from the defaults it is given', () => {
    const only: DefaultModelPrice = { ...orgPrice, source: 'https://example.com/prices', asOf: '2026-01-01' };
    expect(priceOf('gpt-4.1', [], byModelKey([only]))).toBeUndefined();
    expect(priceOf('gpt-4o', [], byModelKey([only]))).toEqual({ ...only, from: 'default' });
  });

  // One meaning of "the same model" (org-prices.ts, `modelKey`): the spellings that find an org's
  // price for a model are those that find the default for it, and no others.
  it.each([
    ['gpt-4o', true],
    ['GPT-4o', true],
    ['Gpt-4O-2024-08-06', true],
    ['OpenAI/GPT-4o', true],
    ['gpt-4o@LATEST', true],
    ['gpt-4o-mini', false],
    ['gpt-4', false],
  ])("finds %s under an org's price exactly when under the default: %s", (sent, found) => {
    const setInCapitals: ModelPrice = { model: 'GPT-4O', usdPerMillion: { input: 1, output: 4 } };
    const gpt4o = byModelKey(defaultPrices.filter((price) => price.model === 'gpt-4o'));
    expect(priceOf(sent, [setInCapitals], new Map())?.from === 'org').toBe(found);
    expect(priceOf(sent, [], gpt4o)?.from === 'default').toBe(found);
  });

  it("looks a model up first by the key an org's price is held under", () => {
    expect(lookupNames('OpenAI/GPT-4o-2024-08-06')[0]).toBe(modelKey('OpenAI/GPT-4o-2024-08-06'));
  });
});

describe('defaultPrices', () => {
  it.each(defaultPrices.map((price) => [price.model, price]))(
    '%s has a positive input and output price, a source and the day it was read',
    (_, { usdPerMillion, source, asOf }) => {
      expect(usdPerMillion.input).toBeGreaterThan(0);
      expect(usdPerMillion.output).toBeGreaterThan(0);
      expect(usdPerMillion.cached_input ?? usdPerMillion.input).toBeGreaterThan(0);
      expect(usdPerMillion.cached_input ?? 0).toBeLessThanOrEqual(usdPerMillion.input);
      expect(new URL(source).protocol).toBe('https:');
      expect(asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(new Date(`${asOf}T00:00:00Z`).toISOString().slice(0, 10)).toBe(asOf);
    },
  );

  it('names each model once (by its key: a second would hide the first), and each is found by its own name', () => {
    const names = defaultPrices.map((price) => modelKey(price.model));
    expect(new Set(names).size).toBe(names.length);
    for (const price of defaultPrices) {
      expect(priceOf(price.model, [])).toEqual({ ...price, from: 'default' });
    }
  });

  it('prices the models the issue names', () => {
    const required = [
      ...[
        'gpt-4o',
        'gpt-4o-mini',
        'gpt-4.1',
        'gpt-4.1-mini',
        'gpt-4.1-nano',
        'o1',
        'o3',
        'o3-mini',
        'o4-mini',
      ],
      ...['gpt-5', 'gpt-5-mini', 'gpt-5-nano', 'text-embedding-3-small', 'text-embedding-3-large'],
      ...['claude-opus-4-1', 'claude-opus-4', 'claude-sonnet-4', 'claude-sonnet-4-5', 'claude-3-7-sonnet'],
      ...['claude-3-5-haiku', 'claude-haiku-4-5', 'gemini-2.5-pro', 'gemini-2.5-flash', 'gemini-2.0-flash'],
    ];
    expect(required.filter((model) => priceOf(model, []) === undefined)).toEqual([]);
  });
});
