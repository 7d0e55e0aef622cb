// The hosted models' list prices Orrery ships (issue 50, item 1), and the rule that finds a span's
// price: the org's own first, then these.
//
// How the table was assembled: every figure is read from Langfuse's default model definitions
// (`langfuse`'s default-model-prices.json, at the commit of `langfuseTable`, last changed
// 2026-08-21), which its maintainers keep against the vendors' pricing pages; each row takes that
// file's "Standard" (default) tier. A dated file is the source because the vendors' pages could
// only be read as undated stored copies: Anthropic's (platform.claude.com/docs/en/about-claude/
// pricing and its model pages) agrees where it could be read; OpenAI's and Google's were checked
// only through third-party copies, which also report that OpenAI's page no longer lists the 4o,
// 4.1 and o-series models. A model the file does not price is not here: it has no default price
// rather than a guessed one.
//
// Left out on purpose: Anthropic's cache writes (1.25× input for five minutes, 2× for an hour) have
// no token kind of ours yet, so the written tokens, counted within the input, cost the input price,
// less than Anthropic bills; long-context tiers (Gemini 2.5/3 Pro above 200k prompt tokens,
// GPT-5.4/5.5 above 272k); batch, flex and priority tiers. No row prices reasoning apart: every
// vendor here bills reasoning tokens as output.

import { modelKey } from './org-prices.ts';
import type { DefaultModelPrice, ModelPrice, PriceOf, UsdPerMillion } from './prices.ts';

const langfuseTable =
  'https://github.com/langfuse/langfuse/blob/2b0e9d23a10f8ef9ed194c6c7084e56950766caa/worker/src/constants/default-model-prices.json';
const asOf = '2026-08-21';

const read = (model: string, usdPerMillion: UsdPerMillion): DefaultModelPrice => ({
  model,
  usdPerMillion,
  source: langfuseTable,
  asOf,
});

/** An embedding's tokens are all input; the vendor names one price for all of them. */
const embedding = (model: string, usdPerMillion: number) =>
  read(model, { input: usdPerMillion, output: usdPerMillion });

export const defaultPrices: readonly DefaultModelPrice[] = [
  // OpenAI
  read('gpt-4o', { input: 2.5, cached_input: 1.25, output: 10 }),
  // The first 4o snapshot kept its launch price: its exact name wins over the undated row.
  read('gpt-4o-2024-05-13', { input: 5, output: 15 }),
  read('gpt-4o-mini', { input: 0.15, cached_input: 0.075, output: 0.6 }),
  read('gpt-4.1', { input: 2, cached_input: 0.5, output: 8 }),
  read('gpt-4.1-mini', { input: 0.4, cached_input: 0.1, output: 1.6 }),
  read('gpt-4.1-nano', { input: 0.1, cached_input: 0.025, output: 0.4 }),
  read('o1', { input: 15, cached_input: 7.5, output: 60 }),
  read('o3', { input: 2, cached_input: 0.5, output: 8 }),
  read('o3-mini', { input: 1.1, cached_input: 0.55, output: 4.4 }),
  read('o4-mini', { input: 1.1, cached_input: 0.275, output: 4.4 }),
  read('gpt-5', { input: 1.25, cached_input: 0.125, output: 10 }),
  read('gpt-5-mini', { input: 0.25, cached_input: 0.025, output: 2 }),
  read('gpt-5-nano', { input: 0.05, cached_input: 0.005, output: 0.4 }),
  read('gpt-5.1', { input: 1.25, cached_input: 0.125, output: 10 }),
  read('gpt-5.2', { input: 1.75, cached_input: 0.175, output: 14 }),
  read('gpt-5.4', { input: 2.5, cached_input: 0.25, output: 15 }),
  read('gpt-5.4-mini', { input: 0.75, cached_input: 0.075, output: 4.5 }),
  read('gpt-5.4-nano', { input: 0.2, cached_input: 0.02, output: 1.25 }),
  read('gpt-5.5', { input: 5, cached_input: 0.5, output: 30 }),
  embedding('text-embedding-3-small', 0.02),
  embedding('text-embedding-3-large', 0.13),
  // Anthropic: cached input is the cache-read ("cache hits and refreshes") price.
  read('claude-opus-4', { input: 15, cached_input: 1.5, output: 75 }),
  read('claude-opus-4-1', { input: 15, cached_input: 1.5, output: 75 }),
  read('claude-opus-4-5', { input: 5, cached_input: 0.5, output: 25 }),
  read('claude-opus-4-6', { input: 5, cached_input: 0.5, output: 25 }),
  read('claude-opus-4-7', { input: 5, cached_input: 0.5, output: 25 }),
  read('claude-opus-4-8', { input: 5, cached_input: 0.5, output: 25 }),
  read('claude-opus-5', { input: 5, cached_input: 0.5, output: 25 }),
  read('claude-3-7-sonnet', { input: 3, cached_input: 0.3, output: 15 }),
  read('claude-sonnet-4', { input: 3, cached_input: 0.3, output: 15 }),
  read('claude-sonnet-4-5', { input: 3, cached_input: 0.3, output: 15 }),
  read('claude-sonnet-4-6', { input: 3, cached_input: 0.3, output: 15 }),
  read('claude-sonnet-5', { input: 2, cached_input: 0.2, output: 10 }),
  read('claude-3-5-haiku', { input: 0.8, cached_input: 0.08, output: 4 }),
  read('claude-haiku-4-5', { input: 1, cached_input: 0.1, output: 5 }),
  // Google (Gemini API): prompts up to 200k tokens; no cached price for 2.0 Flash was found.
  read('gemini-2.5-pro', { input: 1.25, cached_input: 0.125, output: 10 }),
  read('gemini-2.5-flash', { input: 0.3, cached_input: 0.03, output: 2.5 }),
  read('gemini-2.5-flash-lite', { input: 0.1, cached_input: 0.01, output: 0.4 }),
  read('gemini-2.0-flash', { input: 0.1, output: 0.4 }),
  // A pinned version's number is no date, so it is listed by itself, as Langfuse lists it.
  read('gemini-2.0-flash-001', { input: 0.1, output: 0.4 }),
  read('gemini-3-pro-preview', { input: 2, cached_input: 0.2, output: 12 }),
  read('gemini-3.1-pro-preview', { input: 2, cached_input: 0.2, output: 12 }),
  read('gemini-3-flash-preview', { input: 0.5, cached_input: 0.05, output: 3 }),
  read('gemini-3.5-flash', { input: 1.5, cached_input: 0.15, output: 9 }),
];

/**
 * Prices under the key an org holds its own by (`modelKey`), so that "the same model" means one
 * thing for an org's price and for a default.
 */
export type PricesByKey<Price extends ModelPrice> = ReadonlyMap<string, Price>;

export function byModelKey<Price extends ModelPrice>(prices: readonly Price[]): PricesByKey<Price> {
  return new Map(prices.map((price) => [modelKey(price.model), price]));
}

const defaultsByKey = byModelKey(defaultPrices);

/** A price found for a span's model: the org's own, or a default with where it was read. */
export type FoundPrice = (ModelPrice & { from: 'org' }) | (DefaultModelPrice & { from: 'default' });

/**
 * The price of `model`: the org's own price for it wins, then the default. Undefined when neither
 * list names the model: an unknown model has no cost, never a cost of zero.
 */
export function priceOf(
  model: string,
  orgPrices: readonly ModelPrice[],
  defaults: PricesByKey<DefaultModelPrice> = defaultsByKey,
): FoundPrice | undefined {
  const keys = lookupNames(model);
  const own = findPrice(keys, byModelKey(orgPrices));
  if (own !== undefined) return { ...own, from: 'org' };
  const listed = findPrice(keys, defaults);
  return listed === undefined ? undefined : { ...listed, from: 'default' };
}

// What Langfuse's pattern per row allows around a model's name (a provider prefix, Bedrock's ids,
// Vertex's `@date`, dated snapshots), as three small rules for every row: whatever path comes before
// the last `/` (`openai/`, `models/`, `publishers/google/models/`), Bedrock's
// `<region>.anthropic.<name>-v1:0`, and a version date (`-2024-08-06`, `-20250514`, `@20250514`) or
// `-latest`.
const bedrockId = /^(?:[a-z]+\.)?anthropic\.(.+)-v\d+(?::\d+)?$/;
const versionSuffix = /[-@](?:\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

/**
 * The keys `model` is looked up by, most exact first: its own (`modelKey`, as an org's price is
 * held), then without its provider, then also without its version.
 */
export function lookupNames(model: string): string[] {
  const exact = modelKey(model);
  const unprefixed = exact.slice(exact.lastIndexOf('/') + 1);
  const bare = unprefixed.match(bedrockId)?.[1] ?? unprefixed;
  return [...new Set([exact, bare, bare.replace(versionSuffix, '')])];
}

function findPrice<Price extends ModelPrice>(
  keys: readonly string[],
  prices: PricesByKey<Price>,
): Price | undefined {
  for (const key of keys) {
    const price = prices.get(key);
    if (price !== undefined) return price;
  }
  return undefined;
}

/**
 * The prices in effect for one org now, as normalization asks for them (prices.ts, `PriceOf`):
 * each model looked up once, however many of a request's spans name it.
 */
export function pricesInEffect(orgPrices: readonly ModelPrice[]): PriceOf {
  const found = new Map<string, UsdPerMillion | undefined>();
  return (model) => {
    if (!found.has(model)) found.set(model, priceOf(model, orgPrices)?.usdPerMillion);
    return found.get(model);
  };
}
