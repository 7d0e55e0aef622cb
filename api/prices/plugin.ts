import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { OrgModelPrice, OrgState } from '../../domain/orgs/org.ts';
import { defaultPrices } from '../../domain/tracing/default-prices.ts';
import { modelKey, priceBody, priceModel } from '../../domain/tracing/org-prices.ts';
import type { DefaultModelPrice } from '../../domain/tracing/prices.ts';
import type { PgPool } from '../../platform/postgres.ts';
import type { EventProducer } from '../../producers/producer.ts';
import type { OrgDirectory } from '../auth/org-directory.ts';
import { errorResponses } from '../error-responses.ts';
import { ApiError, errorHandler, jsonErrorFormat } from '../errors.ts';
import { commandMeta, PeopleCommands } from '../people/commands.ts';

// What a generation costs (issue 50, item 1): the prices in effect for the caller's org, its own
// and the shipped defaults it has not replaced, and the org's own prices set and removed. A price
// is an org setting, changed as its keys are (api/people/key-routes.ts): by any member at the
// dashboard, with a session and its CSRF token, never with an API key; any member or key reads
// them. Recorded through the org stream's one shell (api/people/commands.ts), which answers once
// this API's directory has the change, so the next span request of the org is priced at it.

const tags = ['prices'];

const appliesFrom =
  'A changed price applies to spans received after the change, never to spans received before it: their cost stays what it was when they were received.';

const byMembers =
  "Any member of the org, with a session and its CSRF token (the dashboard's Settings); an API key is refused with 403 `session_required`.";

const priceRow = z.object({
  model: z.string().describe('as spans name it; matched without regard to case'),
  input: z.number().describe('USD per million input tokens'),
  output: z.number().describe('USD per million output tokens'),
  cached_input: z.number().nullable().describe('USD per million cached input tokens; null: the input price'),
  reasoning: z.number().nullable().describe('USD per million reasoning tokens; null: the output price'),
  source: z.enum(['org', 'default']).describe("the org's own price, or the one shipped with Orrery"),
  source_url: z.string().optional().describe('a default: where its figures were read'),
  as_of: z.string().optional().describe('a default: the day its figures were read, YYYY-MM-DD'),
  updated_at: z.string().optional().describe("the org's own: when it was last set"),
});
type PriceRow = z.output<typeof priceRow>;

function orgRow(price: OrgModelPrice): PriceRow {
  const { input, output, cached_input, reasoning } = price.usdPerMillion;
  return {
    model: price.model,
    input,
    output,
    cached_input: cached_input ?? null,
    reasoning: reasoning ?? null,
    source: 'org',
    updated_at: price.setAt.toISOString(),
  };
}

function defaultRow(price: DefaultModelPrice): PriceRow {
  const { input, output, cached_input, reasoning } = price.usdPerMillion;
  return {
    model: price.model,
    input,
    output,
    cached_input: cached_input ?? null,
    reasoning: reasoning ?? null,
    source: 'default',
    source_url: price.source,
    as_of: price.asOf,
  };
}

/** The prices in effect: the org's own, and each default it has not replaced; by model. */
function pricesInEffect(org: OrgState | undefined): PriceRow[] {
  const own = [...(org?.prices.values() ?? [])];
  const rows = [
    ...own.map(orgRow),
    ...defaultPrices.filter((price) => !org?.prices.has(modelKey(price.model))).map(defaultRow),
  ];
  const byModel = (row: PriceRow) => modelKey(row.model);
  return rows.sort((a, b) => (byModel(a) < byModel(b) ? -1 : byModel(a) > byModel(b) ? 1 : 0));
}

const modelParams = z.object({
  model: priceModel.describe(
    'the model as spans name it, 1 to 200 characters; a `/` in it may be sent as is or as %2F',
  ),
});

const membersOnly = () =>
  new ApiError(
    'session_required',
    403,
    "An org's prices are changed by its members at the dashboard (Settings), with a session, as its keys are; an API key may only read them. Log in, or ask a member of the org.",
  );

/**
 * The path's rest is the model: a model may hold `/` (`openai/gpt-4o`) and run to 200
 * characters, past the router's 100 for a parameter, so the route takes a wildcard, named
 * `model` here before the path is validated. /openapi.json writes it `{model}` (app.ts).
 */
async function nameTheModel(request: FastifyRequest): Promise<void> {
  const { '*': model } = request.params as { '*'?: string };
  request.params = { model };
}

/**
 * The paths as /openapi.json writes them: the wildcard routes under `prefix` are
 * `{prefix}/prices/{model}`, the parameter their schema names.
 */
export function namedModelPaths<Paths extends object>(paths: Paths, prefix: string): Paths {
  const wildcard = `${prefix}/prices/{*}`;
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path === wildcard ? `${prefix}/prices/{model}` : path,
      item,
    ]),
  ) as Paths;
}

export interface PricesDeps {
  directory: OrgDirectory;
  producer: EventProducer;
  pool: PgPool;
  now?: () => Date;
}

export const pricesPlugin: FastifyPluginAsyncZod<PricesDeps> = async (
  app,
  { directory, producer, pool, now },
) => {
  app.setErrorHandler(errorHandler(jsonErrorFormat));
  const commands = new PeopleCommands(directory, producer, pool);
  const clock = now ?? (() => new Date());
  const readers = app.requireKeyOrSession();
  const members = [
    readers,
    async (request: FastifyRequest) => {
      if (request.principal?.kind !== 'member') throw membersOnly();
    },
  ];

  app.get(
    '/prices',
    {
      onRequest: readers,
      schema: {
        tags,
        summary: 'The prices in effect for the org: its own, and each default it has not replaced',
        description: `USD per million tokens of each kind, by model; a span's cost is read from the price in effect when it is received. ${appliesFrom}`,
        response: { 200: z.object({ data: z.array(priceRow) }), ...errorResponses('prices.read') },
      },
    },
    async (request) => ({ data: pricesInEffect(directory.org(request.principal!.orgId)) }),
  );

  app.put(
    '/prices/*',
    {
      onRequest: members,
      preValidation: nameTheModel,
      schema: {
        tags,
        summary: "Set the org's own price for a model (members, with a session)",
        description: `Replaces the org's price for the model in any case (\`GPT-4o\` after \`gpt-4o\`) and wins over the default. ${byMembers} ${appliesFrom}`,
        params: modelParams,
        body: priceBody,
        response: { 200: z.object({ data: priceRow }), ...errorResponses('prices.write') },
      },
    },
    async (request) => {
      const { orgId, personId } = memberOf(request);
      const { model } = request.params;
      await commands.org({
        ...commandMeta(orgId, clock()),
        type: 'SetModelPrice',
        model,
        usdPerMillion: request.body,
        setBy: personId,
      });
      return { data: orgRow(directory.org(orgId)!.prices.get(modelKey(model))!) };
    },
  );

  app.delete(
    '/prices/*',
    {
      onRequest: members,
      preValidation: nameTheModel,
      schema: {
        tags,
        summary:
          "Remove the org's own price for a model (members, with a session): the default, if any, applies again",
        description: `404 \`price_not_found\` when the org has no price of its own for the model. ${byMembers} ${appliesFrom}`,
        params: modelParams,
        response: { 204: z.null(), ...errorResponses('prices.write') },
      },
    },
    async (request, reply) => {
      const { orgId, personId } = memberOf(request);
      await commands.org({
        ...commandMeta(orgId, clock()),
        type: 'RemoveModelPrice',
        model: request.params.model,
        removedBy: personId,
      });
      return reply.status(204).send(null);
    },
  );
};

function memberOf(request: FastifyRequest): { orgId: string; personId: string } {
  const principal = request.principal;
  if (principal?.kind !== 'member') throw membersOnly();
  return { orgId: principal.orgId, personId: principal.personId };
}
