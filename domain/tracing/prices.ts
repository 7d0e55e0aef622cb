// What a generation costs (issue 50, item 1): a price per million tokens of each kind, per model,
// and the cost of a span's tokens at that price. The defaults (default-prices.ts) are the hosted
// models' list prices; an org may set its own for any model (its `ModelPriceSet` events), which
// win over the defaults. A span is priced when it is received, with the prices then in effect:
// a price changed later applies to spans received after the change, never to those before.

/** The kinds of token a price names, as the API spells them. */
export const tokenKinds = ['input', 'output', 'cached_input', 'reasoning'] as const;
export type TokenKind = (typeof tokenKinds)[number];

/**
 * USD per million tokens of each kind. Cached input and reasoning are parts of the input and the
 * output counts (as every convention read counts them): without a price of their own they cost
 * what the input and the output cost.
 */
export type UsdPerMillion = { input: number; output: number } & Partial<
  Record<'cached_input' | 'reasoning', number>
>;

export interface ModelPrice {
  /** The model as spans name it (`gen_ai.response.model` and the others of model.ts). */
  model: string;
  usdPerMillion: UsdPerMillion;
}

/** A price shipped with Orrery: where it was read, and on which day. */
export interface DefaultModelPrice extends ModelPrice {
  source: string;
  /** `YYYY-MM-DD`. */
  asOf: string;
}

/** The price of a model for one org at one moment; undefined for a model without a price. */
export type PriceOf = (model: string) => UsdPerMillion | undefined;

/** A span's token counts, as read (model.ts); null where the span says nothing. */
export interface TokenUsage {
  inputTokens: number | null;
  outputTokens: number | null;
  cachedInputTokens: number | null;
  reasoningTokens: number | null;
}

const nanoUsdPerUsd = 1e9;
const tokensPerMillion = 1e6;

/**
 * The cost of `usage` at `price` in nano-USD (whole billionths of a dollar, so sums stay exact);
 * null when the span counted no tokens at all. A part larger than its whole cannot be a part of
 * it: it was counted apart (the AI SDK 5 does so with Anthropic's cache reads and Gemini's
 * thinking), so the rest of the whole is all of it.
 */
export function costNanoUsd(usage: TokenUsage, price: UsdPerMillion): number | null {
  if (usage.inputTokens === null && usage.outputTokens === null) return null;
  const input = apart(usage.inputTokens ?? 0, usage.cachedInputTokens ?? 0);
  const output = apart(usage.outputTokens ?? 0, usage.reasoningTokens ?? 0);
  return (
    tokensCost(input.rest, price.input) +
    tokensCost(input.part, price.cached_input ?? price.input) +
    tokensCost(output.rest, price.output) +
    tokensCost(output.part, price.reasoning ?? price.output)
  );
}

/** A whole's part and the rest of it; a part larger than the whole was counted beside it. */
function apart(whole: number, part: number): { part: number; rest: number } {
  return part > whole ? { part, rest: whole } : { part, rest: whole - part };
}

function tokensCost(tokens: number, usdPerMillion: number): number {
  return Math.round((tokens * usdPerMillion * nanoUsdPerUsd) / tokensPerMillion);
}

/** Nano-USD as the API shows dollars. */
export function usdOfNano(nanoUsd: number): number {
  return nanoUsd / nanoUsdPerUsd;
}
