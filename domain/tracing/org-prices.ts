import { z } from 'zod';
import { quoteList } from '../params.ts';
import { type TokenKind, tokenKinds, type UsdPerMillion } from './prices.ts';

// An org's own price for a model (issue 50, item 1): what a model name and a price may be, held
// by the org decider (domain/orgs/decide.ts, so no event carries a price no cost can be read
// from) and by the API's body (`PUT /api/prices/{model}`), which refuses the same with a 422
// naming the field. A price set applies to spans received after it, never to those before
// (prices.ts).

export const orgPriceLimits = {
  /** A model name's length, in characters: the longest names (a provider's path) fit. */
  modelLength: 200,
  /**
   * The most a token kind may cost, in USD per million tokens: far above any list price (the
   * priciest are hundreds), and low enough that a span's cost in nano-USD stays a safe integer.
   */
  usdPerMillion: 10_000,
} as const;

const controlCharacter = /\p{Cc}/u;

export const modelNameRule = `send the model as spans name it: 1 to ${orgPriceLimits.modelLength} characters, without control characters`;

/** The model as spans name it: 1 to 200 characters, none of them a control character. */
export function isModelName(model: string): boolean {
  const length = [...model].length;
  return length > 0 && length <= orgPriceLimits.modelLength && !controlCharacter.test(model);
}

/**
 * An org holds one price per model whatever its case: `GPT-4o` set after `gpt-4o` replaces it.
 * The key it is held under.
 */
export const modelKey = (model: string): string => model.toLowerCase();

const priceRule = `send a number of USD per million tokens from 0 to ${orgPriceLimits.usdPerMillion}`;

/** The first token kind whose price is not a finite number from 0 to the ceiling; undefined if none. */
export function invalidPriceKind(price: UsdPerMillion): TokenKind | undefined {
  return tokenKinds.find((kind) => {
    const value = price[kind];
    if (value === undefined) return kind === 'input' || kind === 'output';
    return !Number.isFinite(value) || value < 0 || value > orgPriceLimits.usdPerMillion;
  });
}

export const invalidPriceMessage = (kind: TokenKind) => `\`${kind}\`: ${priceRule}.`;

/** Whether two prices name the same amounts for every kind (one left out equals one left out). */
export const samePrice = (a: UsdPerMillion, b: UsdPerMillion): boolean =>
  tokenKinds.every((kind) => a[kind] === b[kind]);

const usd = z.number(priceRule).min(0, priceRule).max(orgPriceLimits.usdPerMillion, priceRule);

/**
 * The body of `PUT /api/prices/{model}`: USD per million tokens of each kind, as `UsdPerMillion`
 * spells them. Cached input and reasoning left out cost what input and output cost.
 */
export const priceBody = z.strictObject(
  {
    input: usd,
    output: usd,
    cached_input: usd.optional(),
    reasoning: usd.optional(),
  } satisfies Record<TokenKind, z.ZodType>,
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `not a kind of token: send only ${quoteList(tokenKinds)}`
        : 'send a JSON object of USD per million tokens, such as {"input": 2.5, "output": 10}',
  },
);

/** The model in the path of `/api/prices/{model}`. */
export const priceModel = z.string(modelNameRule).refine(isModelName, modelNameRule);
