import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApi } from '../../../api/app.ts';
import { followOrgStream, OrgDirectory, type OrgFollower } from '../../../api/auth/org-directory.ts';
import { defaultPrices } from '../../../domain/tracing/default-prices.ts';
import { logger } from '../../../platform/logger.ts';
import { createPgPool, type PgPool } from '../../../platform/postgres.ts';
import { loadOrg } from '../../../stores/org.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { asPerson, type LoggedIn, signUp, uniqueEmail } from '../people/given.ts';

// An org's own model prices (issue 50, item 1) through HTTP with the real stack: set, listed
// beside the defaults, replaced and removed by its members; recorded on the org stream, so a
// second API process, folding the stream into a directory of its own, prices the org's next span
// request at the change; and projected into Postgres as evolve folds it.

let platform: TestPlatform;
let secondPool: PgPool;
let secondDirectory: OrgDirectory;
let secondFollower: OrgFollower;
let second: FastifyInstance;
beforeAll(async () => {
  platform = await startTestPlatform();
  // Another API process: its own directory following the org stream, its own pool.
  secondDirectory = new OrgDirectory();
  secondFollower = await followOrgStream(secondDirectory, { registry: platform.producer.registry, logger });
  await secondFollower.caughtUp;
  secondPool = createPgPool(2);
  second = await buildApi({
    logger,
    directory: secondDirectory,
    producer: platform.producer,
    pool: secondPool,
    ready: () => secondFollower.isCaughtUp(),
  });
  await second.ready();
});
afterAll(async () => {
  await second?.close();
  await secondFollower?.stop();
  await secondPool?.end();
  await platform.stop();
});

const orgOf = (person: LoggedIn) => person.orgs[0]!.id;

interface PriceRow {
  model: string;
  input: number;
  output: number;
  cached_input: number | null;
  reasoning: number | null;
  source: 'org' | 'default';
  source_url?: string;
  as_of?: string;
  updated_at?: string;
}

const setPrice = (person: LoggedIn, model: string, body: unknown, api = platform.api) =>
  asPerson(api, person, 'PUT', `/api/prices/${encodeURIComponent(model)}`, { body });

async function listed(person: LoggedIn, api = platform.api): Promise<PriceRow[]> {
  const answer = await asPerson(api, person, 'GET', '/api/prices');
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.json().data;
}

const rowsFor = (rows: PriceRow[], model: string) =>
  rows.filter((row) => row.model.toLowerCase() === model.toLowerCase());

/** A shipped default (domain/tracing/default-prices.ts), to replace and then fall back to. */
function aDefault() {
  expect(defaultPrices.length, 'the default table ships prices').toBeGreaterThan(0);
  return defaultPrices[0]!;
}

describe('setting and listing prices', () => {
  it('lists every default to a new org, with where and when it was read', async () => {
    const person = await signUp(platform.api);
    const rows = await listed(person);
    const shipped = aDefault();
    expect(rows.every((row) => row.source === 'default')).toBe(true);
    expect(rows).toHaveLength(defaultPrices.length);
    expect(rowsFor(rows, shipped.model)).toEqual([
      {
        model: shipped.model,
        input: shipped.usdPerMillion.input,
        output: shipped.usdPerMillion.output,
        cached_input: shipped.usdPerMillion.cached_input ?? null,
        reasoning: shipped.usdPerMillion.reasoning ?? null,
        source: 'default',
        source_url: shipped.source,
        as_of: shipped.asOf,
      },
    ]);
  });

  it("sets the org's price for a model: answered at once, and the org's row wins over the default", async () => {
    const person = await signUp(platform.api);
    const shipped = aDefault();
    const model = shipped.model.toUpperCase();
    const answer = await setPrice(person, model, { input: 0.5, output: 1.5, cached_input: 0.05 });
    expect(answer.statusCode, answer.body).toBe(200);
    const row = answer.json().data as PriceRow;
    expect(row).toEqual({
      model,
      input: 0.5,
      output: 1.5,
      cached_input: 0.05,
      reasoning: null,
      source: 'org',
      updated_at: expect.any(String),
    });
    // The answer came once this API's directory had it: the next request is priced at it.
    expect(platform.directory.prices(orgOf(person))).toEqual([
      expect.objectContaining({ model, usdPerMillion: { input: 0.5, output: 1.5, cached_input: 0.05 } }),
    ]);
    const rows = await listed(person);
    expect(rowsFor(rows, shipped.model)).toEqual([row]);
    expect(rows).toHaveLength(defaultPrices.length);
  });

  it('replaces the price of a model set in another case, and lists a model no default names', async () => {
    const person = await signUp(platform.api);
    expect((await setPrice(person, 'acme/house-model', { input: 1, output: 2 })).statusCode).toBe(200);
    const replaced = await setPrice(person, 'ACME/House-Model', { input: 3, output: 4, reasoning: 5 });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(rowsFor(await listed(person), 'acme/house-model')).toEqual([
      expect.objectContaining({
        model: 'ACME/House-Model',
        input: 3,
        output: 4,
        reasoning: 5,
        source: 'org',
      }),
    ]);
    expect(platform.directory.prices(orgOf(person))).toHaveLength(1);
  });

  it("is the org's own: another org lists only the defaults", async () => {
    const owner = await signUp(platform.api);
    await setPrice(owner, 'acme/private-model', { input: 1, output: 1 });
    const other = await signUp(platform.api);
    expect(rowsFor(await listed(other), 'acme/private-model')).toEqual([]);
  });
});

describe('removing a price', () => {
  it('removes the org price (204): the default applies again; a second removal is 404', async () => {
    const person = await signUp(platform.api);
    const shipped = aDefault();
    await setPrice(person, shipped.model, { input: 9, output: 9 });
    const removed = await asPerson(
      platform.api,
      person,
      'DELETE',
      `/api/prices/${encodeURIComponent(shipped.model)}`,
    );
    expect(removed.statusCode, removed.body).toBe(204);
    expect(platform.directory.prices(orgOf(person))).toEqual([]);
    expect(rowsFor(await listed(person), shipped.model)).toEqual([
      expect.objectContaining({ source: 'default', input: shipped.usdPerMillion.input }),
    ]);
    const again = await asPerson(
      platform.api,
      person,
      'DELETE',
      `/api/prices/${encodeURIComponent(shipped.model)}`,
    );
    expect(again.statusCode).toBe(404);
    expect(again.json().error).toMatchObject({ code: 'price_not_found' });
  });

  it('answers 404 for a model the org never priced, a default among them', async () => {
    const person = await signUp(platform.api);
    const answer = await asPerson(
      platform.api,
      person,
      'DELETE',
      `/api/prices/${encodeURIComponent(aDefault().model)}`,
    );
    expect(answer.statusCode).toBe(404);
    expect(answer.json().error.message).toMatch(/GET \/api\/prices/);
  });
});

describe('refusals', () => {
  it.each<[string, string, unknown, string]>([
    ['a negative price', 'm', { input: -1, output: 1 }, 'input'],
    ['a price that is not a number', 'm', { input: 1, output: 'ten' }, 'output'],
    ['a key that is not a token kind', 'm', { input: 1, output: 1, cache_read: 1 }, 'cache_read'],
    ['a model of 201 characters', 'm'.repeat(201), { input: 1, output: 1 }, 'model'],
    ['a model with a control character', 'gpt\t4o', { input: 1, output: 1 }, 'model'],
  ])('answers 422 for %s, naming the field', async (_, model, body, param) => {
    const person = await signUp(platform.api);
    const answer = await setPrice(person, model, body);
    expect(answer.statusCode, answer.body).toBe(422);
    expect(answer.json().error).toMatchObject({ code: 'invalid_request', param });
    expect(platform.directory.prices(orgOf(person))).toEqual([]);
  });

  it('lets any member change prices with a session and its CSRF token; a key reads them but may not change them', async () => {
    const owner = await signUp(platform.api, { org_name: 'Priced' });
    const email = uniqueEmail('member');
    const invited = await asPerson(platform.api, owner, 'POST', `/api/orgs/${orgOf(owner)}/invitations`, {
      body: { email },
    });
    const token = decodeURIComponent((invited.json().data.link as string).split('/invitations/')[1]!);
    const member = await signUp(platform.api, { email, invitation: token });
    expect(member.orgs).toEqual([expect.objectContaining({ id: orgOf(owner), role: 'member' })]);
    expect((await setPrice(member, 'acme/by-member', { input: 1, output: 1 })).statusCode).toBe(200);

    const withoutCsrf = await asPerson(platform.api, member, 'PUT', '/api/prices/acme%2Fno-csrf', {
      body: { input: 1, output: 1 },
      csrf: false,
    });
    expect(withoutCsrf.statusCode).toBe(403);
    expect(withoutCsrf.json().error.code).toBe('csrf_token_invalid');

    const created = await asPerson(platform.api, owner, 'POST', `/api/orgs/${orgOf(owner)}/keys`, {
      body: { name: 'ci', scopes: ['traces:write'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const authorization = `Bearer ${created.json().data.key}`;
    const read = await platform.api.inject({ method: 'GET', url: '/api/prices', headers: { authorization } });
    expect(read.statusCode, read.body).toBe(200);
    expect(rowsFor(read.json().data, 'acme/by-member')).toEqual([expect.objectContaining({ source: 'org' })]);
    const write = await platform.api.inject({
      method: 'PUT',
      url: '/api/prices/acme%2Fby-key',
      headers: { authorization },
      payload: { input: 1, output: 1 },
    });
    expect(write.statusCode).toBe(403);
    expect(write.json().error.code).toBe('session_required');
    const removal = await platform.api.inject({
      method: 'DELETE',
      url: '/api/prices/acme%2Fby-member',
      headers: { authorization },
    });
    expect(removal.statusCode).toBe(403);
  });

  it('answers 401 without a key or a session', async () => {
    expect((await platform.api.inject({ method: 'GET', url: '/api/prices' })).statusCode).toBe(401);
  });
});

describe('across API processes', () => {
  it("a second API process's directory has the price from the org stream, and answers it", async () => {
    const person = await signUp(platform.api);
    const orgId = orgOf(person);
    expect((await setPrice(person, 'acme/replicated', { input: 1.25, output: 5 })).statusCode).toBe(200);
    const seen = await eventually(
      async () => {
        const prices = secondDirectory.prices(orgId);
        return prices.length > 0 ? prices : undefined;
      },
      5_000,
      "the price in the second process's directory",
    );
    expect(seen).toEqual([
      expect.objectContaining({ model: 'acme/replicated', usdPerMillion: { input: 1.25, output: 5 } }),
    ]);
    expect(rowsFor(await listed(person, second), 'acme/replicated')).toEqual([
      expect.objectContaining({ input: 1.25, output: 5, source: 'org' }),
    ]);

    // Removed through the second process: it answers once its own directory has the change, and
    // the first follows from the stream.
    const removed = await asPerson(second, person, 'DELETE', '/api/prices/acme%2Freplicated');
    expect(removed.statusCode, removed.body).toBe(204);
    await eventually(
      async () => (platform.directory.prices(orgId).length === 0 ? true : undefined),
      5_000,
      "the removal in the first process's directory",
    );
  });
});

describe('the read model', () => {
  it('holds what evolve folds: the org loaded from Postgres has the same prices as the directory', async () => {
    const person = await signUp(platform.api);
    const orgId = orgOf(person);
    await setPrice(person, 'acme/a', { input: 0.075, output: 0.3, cached_input: 0 });
    await setPrice(person, 'acme/b', { input: 1e-7, output: 10_000, reasoning: 12.5 });
    await setPrice(person, 'ACME/A', { input: 0.1, output: 0.4 });
    await asPerson(platform.api, person, 'DELETE', '/api/prices/acme%2Fb');
    await setPrice(person, 'acme/c', { input: 2, output: 2 });
    const folded = platform.directory.org(orgId)!.prices;
    const projected = await eventually(
      async () => {
        const org = await loadOrg(platform.pool, orgId);
        return org?.prices.has('acme/c') ? org : undefined;
      },
      10_000,
      'the prices in Postgres',
    );
    expect(projected.prices).toEqual(folded);
    expect([...projected.prices.values()].map((price) => [price.model, price.usdPerMillion])).toEqual(
      expect.arrayContaining([
        ['ACME/A', { input: 0.1, output: 0.4 }],
        ['acme/c', { input: 2, output: 2 }],
      ]),
    );
    expect(projected.prices.size).toBe(2);
  });
});
