import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createApiKey, enableTracing, grantCredit } from '../../api/admin/commands.ts';
import { hashApiKey } from '../../api/auth/api-keys.ts';
import { centsPerMillionInputTokens } from '../../domain/billing/price.ts';
import { defaultPrices } from '../../domain/tracing/default-prices.ts';
import { orgPriceLimits } from '../../domain/tracing/org-prices.ts';
import type { KeyValue } from '../../domain/tracing/otlp.ts';
import type { UsdPerMillion } from '../../domain/tracing/prices.ts';
import { postCharges } from '../../jobs/post-charges.ts';
import { count, none, requestCost, usd, usdPrice } from '../../packages/dashboard/src/format.ts';
import { sessionPath, userPath } from '../../packages/dashboard/src/paths.ts';
import { createDesktop } from '../../sandbox-runtime/desktop/index.ts';
import { launchChromium } from '../harness/browser.ts';
import { buildDashboard, noneLoading, screenshotFolder } from '../harness/dashboard.ts';
import { largeAgentTrace } from '../harness/large-trace.ts';
import { type ModelServer, scriptedModel, startModelServer } from '../harness/model-server.ts';
import { eventually } from '../harness/platform.ts';
import { exportSpans, llmSpan, spanId, traceId } from '../harness/tracing.ts';
import { password, signUp, uniqueEmail } from '../int/people/given.ts';
import { givenSandboxApi, prepareTimeoutMs, type SandboxApi } from '../int/sandboxes/given.ts';
import { colours, openTestPage, serveTestPage } from '../int/sandboxes-desktop/given.ts';

// The dashboard's data pages as a person uses them (issue 15, items 3 and 4), in real Chromium
// against the real stack: a Playground title request and its answer; the Billing page once the
// posting job has charged it; Endpoints > Requests with that request (the person who sent it) and
// one made with a key (its name), each opened from its row (issue 50, item 4); the tracing beta asked for, approved by an operator, and a trace sent over OTLP
// found by its tool's name, opened as a tree beside its waterfall, its spans' messages read;
// Settings > Prices, the org's own price for a model set, refused and removed, and a priced
// generation's cost in the trace list, the trace and its span (issue 50, item 1); a session read
// as its conversation and a user's sessions and traces (issue 50, item 2); a trace of 2,000
// spans, only its rows in view in the page, scrolled to its end, moved through with the keys and
// searched (issue 50, item 3); the pages at the screen's width, quick time ranges in the address,
// the trace list's columns chosen and kept, Live showing a new trace without a reload, an API
// message's backticks as code, a request opened from its row (issue 50, item 4); a sandbox made
// with a key watched on its live screen, its desktop stopped and started from its page, and a
// member watching it told so when an owner removes them from the org (issue 50, item 4).
// axe-core on every page (no serious or critical violation), and each saved in
// test-results/dashboard/pages/.

const screenshots = screenshotFolder('test-results/dashboard/pages');
const { seen } = screenshots;

const modelLine = 'Planning a Lisbon trip';
/** The person signed up: the request log names them for their Playground request. */
const signedUpAs = 'Ada';
const usage = { input: 120, output: 5 };

let api: SandboxApi;
let model: ModelServer;
let browser: Browser;
let page: Page;
let base: string;
let orgId: string;
let desktop: ReturnType<typeof createDesktop>;
let built: Awaited<ReturnType<typeof buildDashboard>> | undefined;

beforeAll(async () => {
  built = await buildDashboard();
  model = await startModelServer(() => ({ line: modelLine, usage }));
  api = await givenSandboxApi(
    (runtime) => {
      desktop = createDesktop(runtime);
      return { desktop };
    },
    { models: [scriptedModel(model)], dashboardRoot: built.root },
  );
  base = api.baseUrl;
  browser = await launchChromium((line) => process.stderr.write(`[browser] ${line}\n`));
  page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();

  await page.goto(`${base}/signup`);
  await page.getByLabel('Your name').fill(signedUpAs);
  await page.getByLabel('Email', { exact: true }).fill(uniqueEmail('ada'));
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.waitForURL(/\/orgs\/[^/]+\/settings\/keys$/);
  orgId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]!);
  await grantCredit(api.platform.admin, orgId, 500, 'the dashboard test');
}, prepareTimeoutMs);

afterAll(async () => {
  await browser?.close();
  await api?.cleanup();
  await model?.close();
  built?.remove();
  if (screenshots.count() > 0)
    process.stderr.write(`[dashboard] ${screenshots.count()} screenshots in ${screenshots.dir}\n`);
});

/** A key of the org made as an operator would, once the API knows it. */
async function orgKey(scopes: Parameters<typeof createApiKey>[2], name: string): Promise<string> {
  const { key } = await createApiKey(api.platform.admin, orgId, scopes, name);
  await eventually(async () => api.platform.directory.principal(hashApiKey(key)), 5_000, `the key ${name}`);
  return key;
}

const orgPage = (path: string) => `${base}/orgs/${orgId}/${path}`;

/** Reloads until `ready` holds, as a person reloads a page whose data is on its way. */
async function reloadUntil(ready: () => Promise<boolean>, what: string): Promise<void> {
  await eventually(
    async () => {
      if (await ready()) return true;
      await page.reload();
      await noneLoading(page);
      return undefined;
    },
    20_000,
    what,
  );
}

const factOf = (term: string) => page.locator(`dt:text-is("${term}") + dd`).first();

describe('the data pages of the dashboard', () => {
  it('sends a title request from the Playground and shows its text, fallback, usage, latency and cost', async () => {
    await page.goto(orgPage('playground'));
    await page.getByRole('heading', { name: 'Playground', level: 1 }).waitFor();
    expect(await page.getByLabel('Model', { exact: true }).inputValue()).toBe('scribe');
    await seen(page, 'playground');

    // A preview of an agent's action without the tool's name: the API's message at the Tool field.
    await page.getByLabel('Endpoint', { exact: true }).selectOption('previews');
    await page.getByLabel('Kind', { exact: true }).selectOption('agent_action');
    await page.getByLabel('Tool', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Send the request' }).click();
    await page.locator('input[name="item.tool"][aria-invalid="true"]').waitFor();
    const toolError = page.locator('.field-error');
    expect(await toolError.textContent()).toContain('item.tool must not be empty');
    // The message's backticks mark a name: shown as code, the backticks gone (issue 50, item 4).
    expect(await toolError.locator('code').allTextContents()).toEqual(['item.tool']);
    await seen(page, 'playground-field-error');

    await page.getByLabel('Endpoint', { exact: true }).selectOption('titles');
    await page.getByLabel('Message 2: content').fill('Sure: when do you leave?');
    await page.getByRole('button', { name: 'Send the request' }).click();
    const answer = page.getByRole('region', { name: 'The answer' });
    await answer.getByText(modelLine).waitFor();
    expect(await factOf('Fallback').textContent()).toContain("No: the model's own line");
    expect(await factOf('Input tokens').textContent()).toBe(String(usage.input));
    expect(await factOf('Output tokens').textContent()).toBe(String(usage.output));
    expect(await factOf("Model's time").textContent()).toMatch(/^\d+(\.\d+)? (ms|s)$/);
    expect(await factOf('Cost').textContent()).toBe(
      requestCost(usage.input, Number(centsPerMillionInputTokens)),
    );
    await seen(page, 'playground-answer');
  });

  it('lists the Playground request under the person who sent it and a request made with a key under its name', async () => {
    const key = await orgKey(['inference:invoke'], 'ci-bot');
    const answer = await fetch(`${base}/api/inference/scribe/v1/titles`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'Book a table for two tonight' }] }),
    });
    expect(answer.status).toBe(200);

    await page.goto(orgPage('endpoints/requests'));
    await page.getByRole('heading', { name: 'Requests', level: 1 }).waitFor();
    const rows = page.getByRole('table', { name: 'Requests' }).locator('tbody tr');
    await reloadUntil(async () => (await rows.count()) === 2, 'both requests in the log');
    const keyed = rows.filter({ hasText: 'ci-bot' });
    expect(await keyed.count()).toBe(1);
    const playground = rows.filter({ hasText: `Playground · ${signedUpAs}` });
    expect(await playground.count()).toBe(1);
    expect(await playground.textContent()).toContain('scribe');
    expect(await page.getByRole('columnheader', { name: 'Made by' }).count()).toBe(1);
    await seen(page, 'requests');

    // Filtered to the key: only its request, the filter kept in the address.
    const option = page.getByLabel('Key', { exact: true }).locator('option', { hasText: 'ci-bot' });
    await page.getByLabel('Key', { exact: true }).selectOption((await option.getAttribute('value'))!);
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.waitForURL(/key_id=/);
    await eventually(
      async () => ((await rows.count()) === 1 ? true : undefined),
      10_000,
      'the filtered list',
    );
    expect(await rows.first().textContent()).toContain('ci-bot');

    // A filter the API refuses: its message at that field.
    await page.goto(orgPage('endpoints/requests?limit=500'));
    await page.locator('input[name="limit"][aria-invalid="true"]').waitFor();
    await seen(page, 'requests-filter-refused');
  });

  it('opens a request from its row, by a click anywhere on the row or by the keyboard, with who made it, tokens, time and cost', async () => {
    await page.goto(orgPage('endpoints/requests'));
    const rows = page.getByRole('table', { name: 'Requests' }).locator('tbody tr');
    await reloadUntil(async () => (await rows.count()) === 2, 'both requests in the log');

    // A click on the row's model, not on its link: the row opens. The row's link lies over the whole
    // row (that is what makes a click anywhere open it), so the pointer lands on the link: Playwright
    // is told to click where the cell is rather than wait for the cell itself to be the target.
    await rows
      .filter({ hasText: 'ci-bot' })
      .getByRole('cell', { name: 'scribe', exact: true })
      .click({ force: true });
    await page.waitForURL(/\/endpoints\/requests\/[^/?]+$/);
    await page.getByRole('heading', { name: 'Request', level: 1 }).waitFor();
    await noneLoading(page);
    expect(await factOf('Made by').textContent()).toContain('ci-bot');
    expect(await factOf('Model').textContent()).toBe('scribe');
    expect(await factOf('Endpoint').textContent()).toBe('/v1/titles');
    expect(await factOf('Input tokens').textContent()).toBe(String(usage.input));
    expect(await factOf('Output tokens').textContent()).toBe(String(usage.output));
    expect(await factOf("Model's time").textContent()).toMatch(/^\d+(\.\d+)? (ms|s)$/);
    expect(await factOf('Fallback').textContent()).toContain("No: the model's own line");
    expect(await factOf('Cost').textContent()).toContain(
      requestCost(usage.input, Number(centsPerMillionInputTokens)),
    );
    const requestId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    expect(await factOf('Request id').textContent()).toBe(requestId);
    await seen(page, 'request');

    // The Playground's row: its link takes the focus, as Tab gives it, and Enter opens the request.
    await page.getByRole('link', { name: 'Back to the requests' }).click();
    await rows.first().waitFor();
    const link = rows.filter({ hasText: `Playground · ${signedUpAs}` }).getByRole('link');
    await link.focus();
    expect(await link.evaluate((element) => element.matches(':focus'))).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Request', level: 1 }).waitFor();
    await noneLoading(page);
    expect(await factOf('Made by').textContent()).toBe(`Playground · ${signedUpAs}`);

    // An id the org does not hold: the API's message.
    await page.goto(orgPage('endpoints/requests/req_none'));
    await page.getByRole('alert').getByText('no request with this id').waitFor();
    await seen(page, 'request-not-found');
  });

  it('shows the charge on Billing once the posting job has charged the day, with the chart', async () => {
    const posted = await eventually(
      async () => {
        const result = await postCharges(
          { pool: api.platform.pool, producer: api.platform.producer },
          { orgIds: [orgId] },
        );
        return result.posted.length > 0 ? result.posted : undefined;
      },
      20_000,
      'a charge posted for the day',
    );
    await page.goto(orgPage('billing'));
    await page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
    const today = new Date().toISOString().slice(0, 10);
    const row = page.getByRole('row', { name: new RegExp(`${today}.*scribe`) });
    await row.waitFor();
    const cents = posted.reduce((sum, charge) => sum + charge.cents, 0);
    expect(await row.locator('td').last().textContent()).toBe(`$0.${String(cents).padStart(2, '0')}`);
    expect(await factOf('Credit granted').textContent()).toBe('$5.00');
    await page.locator('figure.chart .recharts-bar-rectangle').first().waitFor();
    await seen(page, 'billing');
  });

  it('asks to join the tracing beta, then finds a trace by its tool and reads its spans', async () => {
    await page.goto(orgPage('tracing'));
    await page.getByRole('heading', { name: 'Tracing is in beta' }).waitFor();
    await seen(page, 'tracing-beta');
    await page.getByRole('button', { name: 'Ask to join the beta' }).click();
    await page.getByText(/asked to join on/).waitFor();
    await seen(page, 'tracing-asked');

    await enableTracing(api.platform.admin, orgId);
    const key = await orgKey(['traces:write'], 'tracer');
    const sent = await exportSpans(api.platform.api, { spans: agentTrace(), key, format: 'json' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);

    await page.reload();
    const search = page.getByRole('searchbox', { name: 'Search span names' });
    await search.fill('lookup_flights');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/name=lookup_flights/);
    const link = page.getByRole('link', { name: 'plan-trip' });
    await reloadUntil(async () => (await link.count()) === 1, 'the trace in the list');
    await page.getByRole('heading', { name: 'The last 7 days' }).waitFor();
    await page.locator('.chart-card figure.chart').first().waitFor();
    await seen(page, 'tracing-list');

    // The session is a filter one click away.
    await page.getByRole('button', { name: 'Only the traces of session sess-42' }).click();
    await page.waitForURL(/session_id=sess-42/);
    await link.waitFor();

    await link.click();
    await page.getByRole('heading', { name: 'plan-trip', level: 1 }).waitFor();
    const tree = page.getByRole('region', { name: 'Spans' });
    for (const name of ['plan-trip', 'chat gpt-4o', 'execute_tool lookup_flights'])
      await tree.getByRole('button', { name: new RegExp(`^${name},`) }).waitFor();
    expect(await tree.locator('.bar').count()).toBe(3);
    await seen(page, 'trace');

    await tree.getByRole('button', { name: /^execute_tool lookup_flights,/ }).click();
    const panel = page.getByRole('region', { name: 'execute_tool lookup_flights' });
    await panel.getByText('"to": "LIS"').waitFor();
    await panel.getByText('TP 1352').waitFor();
    expect(await panel.locator('dt:text-is("Kind") + dd').textContent()).toBe('tool');
    await seen(page, 'trace-tool-span');

    await tree.getByRole('button', { name: /^chat gpt-4o,/ }).click();
    const chat = page.getByRole('region', { name: 'chat gpt-4o' });
    await chat.getByText('Find me a flight to Lisbon').waitFor();
    expect(await chat.locator('.part-tool').first().textContent()).toContain('Tool call lookup_flights');
    expect(await chat.locator('.message .role').allTextContents()).toEqual(
      expect.arrayContaining(['user', 'assistant', 'tool']),
    );
    expect(await chat.locator('dt:text-is("Tokens") + dd').textContent()).toBe('42 in, 7 out');
    expect(await chat.locator('dt:text-is("Model") + dd').textContent()).toBe('gpt-4o');
    await seen(page, 'trace-generation-span');
  });

  it("lists the prices in Settings > Prices, sets the org's own for a model, refuses a negative one at its field, and removes it", async () => {
    const mini = defaultPrice('gpt-4o-mini');
    const nano = defaultPrice('gpt-4.1-nano');
    await page.goto(orgPage('settings'));
    await page.getByRole('link', { name: 'Prices', exact: true }).click();
    await page.waitForURL(/\/settings\/prices$/);
    const table = page.getByRole('table', { name: 'Prices' });
    const rowOf = (model: string) =>
      table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: model, exact: true }) });
    const cells = (model: string) => rowOf(model).getByRole('cell');
    const defaultSource = (price: typeof mini) => `Default (as of ${price.asOf}, source)`;
    await rowOf(mini.model).waitFor();
    expect(await cells(mini.model).allTextContents()).toEqual([
      ...priceCells(mini.usdPerMillion),
      defaultSource(mini),
      'Edit',
    ]);
    expect(await cells(mini.model).nth(4).getByRole('link', { name: 'source' }).getAttribute('href')).toBe(
      mini.source,
    );
    await seen(page, 'prices');

    // Editing a default starts from its figures, the focus on the first.
    await rowOf(nano.model)
      .getByRole('button', { name: `Edit the price of ${nano.model}` })
      .click();
    const field = (label: string) => page.getByLabel(label, { exact: true });
    await expect.poll(() => field('Model').inputValue()).toBe(nano.model);
    expect(await field('Input').inputValue()).toBe(String(nano.usdPerMillion.input));
    expect(await field('Output').inputValue()).toBe(String(nano.usdPerMillion.output));
    expect(await page.evaluate('document.activeElement?.getAttribute("name")')).toBe('input');

    // A negative price: the API's 422 names the field, and the form says it there.
    await field('Input').fill('-1');
    await page.getByRole('button', { name: 'Save the price' }).click();
    await page.locator('input[name="input"][aria-invalid="true"]').waitFor();
    expect(await page.locator('.field-error').textContent()).toContain(
      `from 0 to ${orgPriceLimits.usdPerMillion}`,
    );
    await seen(page, 'prices-refused');
    const ownModels = () => api.platform.directory.prices(orgId).map((price) => price.model);
    expect(ownModels()).not.toContain(nano.model);

    const own: UsdPerMillion = { input: 0.2, output: 0.8, cached_input: 0.05 };
    await field('Input').fill(String(own.input));
    await field('Output').fill(String(own.output));
    await field('Cached input').fill(String(own.cached_input));
    await field('Reasoning').fill('');
    await page.getByRole('button', { name: 'Save the price' }).click();
    await page.getByText(`Saved: spans of ${nano.model} received from now on`).waitFor();
    expect(await cells(nano.model).allTextContents()).toEqual([
      ...priceCells(own),
      expect.stringMatching(/^Your price/),
      'EditRemove',
    ]);
    expect(api.platform.directory.prices(orgId)).toContainEqual(
      expect.objectContaining({ model: nano.model, usdPerMillion: own }),
    );
    expect(await field('Model').inputValue()).toBe('');
    await seen(page, 'prices-own');

    // Removed: the default applies again.
    await rowOf(nano.model)
      .getByRole('button', { name: `Remove your price for ${nano.model}` })
      .click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove the price' }).click();
    await page.getByText(`Removed your price for ${nano.model}:`).waitFor();
    expect(await cells(nano.model).allTextContents()).toEqual([
      ...priceCells(nano.usdPerMillion),
      defaultSource(nano),
      'Edit',
    ]);
    expect(ownModels()).not.toContain(nano.model);
  });

  it("shows a priced generation's cost in the trace list, the trace and its span, and none for a model without a price", async () => {
    const mini = defaultPrice('gpt-4o-mini');
    const tokens = { input: 1000, output: 200 };
    const cost = usd(
      (tokens.input * mini.usdPerMillion.input + tokens.output * mini.usdPerMillion.output) / 1_000_000,
    );
    expect(cost).toBe('$0.00027');
    // In the beta since the test above that asked for it; enabling again changes nothing.
    await enableTracing(api.platform.admin, orgId);
    const key = await orgKey(['traces:write'], 'cost-tracer');
    const sent = await exportSpans(api.platform.api, { spans: costTraces(tokens), key, format: 'json' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);

    await page.goto(orgPage('tracing'));
    const table = page.getByRole('table', { name: 'Traces' });
    const rowOf = (name: string) =>
      table.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });
    const costed = rowOf('costed-trip');
    const unpriced = rowOf('house-chat');
    // The first column of a row is its header; cells count from the second.
    const cellUnder = async (row: typeof costed, header: string) =>
      row.getByRole('cell').nth((await table.locator('thead th').allTextContents()).indexOf(header) - 1);
    await reloadUntil(
      async () =>
        (await costed.count()) === 1 &&
        (await unpriced.count()) === 1 &&
        (await (await cellUnder(costed, 'Spans')).textContent()) === '3',
      'both traces in the list with all their spans',
    );
    expect(await (await cellUnder(costed, 'Cost')).textContent()).toBe(cost);
    expect(await (await cellUnder(unpriced, 'Cost')).textContent()).toBe(none);
    // The analytics: cost by model, the model without a price named rather than drawn as $0.
    const costChart = page.getByRole('figure', { name: /; no price for house-model$/ });
    await reloadUntil(async () => (await costChart.count()) === 1, 'the cost chart');
    await seen(page, 'tracing-costs');

    await costed.getByRole('link', { name: 'costed-trip', exact: true }).click();
    await page.getByRole('heading', { name: 'costed-trip', level: 1 }).waitFor();
    expect(await factOf('Cost').textContent()).toBe(cost);
    const tree = page.getByRole('region', { name: 'Spans' });
    await tree.getByRole('button', { name: /^chat gpt-4o-mini,/ }).click();
    const chat = page.getByRole('region', { name: 'chat gpt-4o-mini' });
    const chatFact = (term: string) => chat.locator(`dt:text-is("${term}") + dd`);
    expect(await chatFact('Tokens').textContent()).toBe('1,000 in, 200 out');
    expect(await chatFact('Cost').textContent()).toBe(cost);
    expect(await chatFact('Cached input tokens').textContent()).toBe('none reported');
    expect(await chatFact('Reasoning tokens').textContent()).toBe('none reported');
    await seen(page, 'trace-generation-cost');

    await tree.getByRole('button', { name: /^chat house-model,/ }).click();
    const house = page.getByRole('region', { name: 'chat house-model' });
    const houseFact = (term: string) => house.locator(`dt:text-is("${term}") + dd`);
    expect(await houseFact('Cost').textContent()).toBe(`${none}: set a price for house-model`);
    expect(await houseFact('Cached input tokens').textContent()).toBe('100');
    expect(await houseFact('Reasoning tokens').textContent()).toBe('12');
    await seen(page, 'trace-generation-unpriced');

    // Its way to a price: Settings > Prices, the model filled in.
    await house.getByRole('link', { name: 'set a price for house-model' }).click();
    await page.waitForURL(/\/settings\/prices\?model=house-model$/);
    await page.getByRole('heading', { name: 'Set a price' }).waitFor();
    expect(await page.getByLabel('Model', { exact: true }).inputValue()).toBe('house-model');
  });

  it('narrows the trace list, the analytics and the request log to a quick time range kept in the address, across the width of the screen', async () => {
    await enableTracing(api.platform.admin, orgId);
    const key = await orgKey(['traces:write'], 'range-tracer');
    const hourMs = 60 * 60 * 1000;
    const sent = await exportSpans(api.platform.api, {
      spans: [chatAgo('recent-run', 5 * 60 * 1000), chatAgo('earlier-run', 3 * hourMs)],
      key,
      format: 'json',
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);

    await page.goto(orgPage('tracing'));
    const table = page.getByRole('table', { name: 'Traces' });
    const link = (name: string) => table.getByRole('link', { name, exact: true });
    await reloadUntil(
      async () => (await link('recent-run').count()) === 1 && (await link('earlier-run').count()) === 1,
      'both traces in the list',
    );
    // The page takes the screen's width (the content stopped at 1,000 px), the table with it.
    expect((await page.locator('main').boundingBox())?.width).toBeGreaterThan(1000);
    expect((await table.boundingBox())?.width).toBeGreaterThan(1000);

    const ranges = page.getByRole('group', { name: 'Quick time range' });
    const range = (label: string) => ranges.getByRole('button', { name: label, exact: true });
    const pressed = async () =>
      (await ranges.locator('button[aria-pressed="true"]').allTextContents()).join(', ');
    expect(await pressed()).toBe('');
    await range('24 hours').click();
    await page.waitForURL(/[?&]range=24h(&|$)/);
    await expect.poll(pressed).toBe('24 hours');
    await link('recent-run').waitFor();
    expect(await link('earlier-run').count()).toBe(1);

    await range('1 hour').click();
    await page.waitForURL(/[?&]range=1h(&|$)/);
    await link('earlier-run').waitFor({ state: 'detached' });
    expect(await link('recent-run').count()).toBe(1);
    expect(await pressed()).toBe('1 hour');
    await seen(page, 'tracing-range');

    // Kept across a reload, as a shared link would open it.
    await page.reload();
    await link('recent-run').waitFor();
    expect(await link('earlier-run').count()).toBe(0);
    expect(await pressed()).toBe('1 hour');

    // Pressed again, the range is no longer chosen: the list is whole again.
    await range('1 hour').click();
    await expect.poll(() => new URL(page.url()).searchParams.has('range')).toBe(false);
    await link('earlier-run').waitFor();
    expect(await pressed()).toBe('');

    // The analytics have their own, the API's 7 days pressed until another is chosen.
    const chartRanges = page.getByRole('group', { name: 'Time range of the analytics' });
    const chartsPressed = () => chartRanges.locator('button[aria-pressed="true"]').allTextContents();
    expect(await chartsPressed()).toEqual(['7 days']);
    await chartRanges.getByRole('button', { name: '24 hours', exact: true }).click();
    await page.waitForURL(/[?&]analytics_range=24h(&|$)/);
    await page.getByRole('heading', { name: 'The last 24 hours', level: 2 }).waitFor();
    expect(await chartsPressed()).toEqual(['24 hours']);
    await page.locator('.chart-card figure.chart').first().waitFor();
    await seen(page, 'tracing-analytics-range');

    // The request log has the same ranges, kept in its address; its requests are minutes old.
    await page.goto(orgPage('endpoints/requests'));
    await page.getByRole('heading', { name: 'Requests', level: 1 }).waitFor();
    const rows = page.getByRole('table', { name: 'Requests' }).locator('tbody tr');
    await rows.first().waitFor();
    await range('1 hour').click();
    await page.waitForURL(/[?&]range=1h(&|$)/);
    await expect.poll(pressed).toBe('1 hour');
    await rows.first().waitFor();
    await seen(page, 'requests-range');
  });

  it('hides a column of the trace list and shows it again, the choice kept in the address across a reload', async () => {
    await page.goto(orgPage('tracing'));
    const table = page.getByRole('table', { name: 'Traces' });
    await table.waitFor();
    const headers = () => table.locator('thead th').allTextContents();
    expect(await headers()).toEqual([
      'Trace',
      'Started',
      'Model',
      'Latency',
      'Spans',
      'Errors',
      'Tokens in / out',
      'Cost',
      'Session',
      'User',
    ]);
    const chooser = page.getByRole('group', { name: 'Columns shown' });
    const model = chooser.getByRole('checkbox', { name: 'Model', exact: true });
    await page.locator('details.column-chooser > summary').click();
    expect(await model.isChecked()).toBe(true);
    await model.click();
    await page.waitForURL(/[?&]columns=/);
    await expect.poll(headers).not.toContain('Model');
    expect(new URL(page.url()).searchParams.get('columns')).toBe(
      'started,latency,spans,errors,tokens,cost,session,user',
    );
    await seen(page, 'tracing-columns');

    await page.reload();
    await table.waitFor();
    expect(await headers()).not.toContain('Model');
    await page.locator('details.column-chooser > summary').click();
    expect(await model.isChecked()).toBe(false);
    await model.click();
    await expect.poll(headers).toContain('Model');
    expect(new URL(page.url()).searchParams.has('columns')).toBe(false);
  });

  it('shows a trace exported after Live was turned on, without a reload', async () => {
    await page.goto(orgPage('tracing'));
    const table = page.getByRole('table', { name: 'Traces' });
    await table.waitFor();
    const live = page.getByRole('button', { name: 'Live', exact: true });
    expect(await live.getAttribute('aria-pressed')).toBe('false');
    await live.click();
    await page.waitForURL(/[?&]live=1(&|$)/);
    await page.getByText(/; refreshed at /).waitFor();
    // A mark on this document: a reload would make a new one without it.
    await page.evaluate('window.beforeLive = true');

    const key = await orgKey(['traces:write'], 'live-tracer');
    const sent = await exportSpans(api.platform.api, {
      spans: [llmSpan({ name: 'live-arrival' })],
      key,
      format: 'json',
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    await table.getByRole('link', { name: 'live-arrival', exact: true }).waitFor({ timeout: 30_000 });
    expect(await page.evaluate('window.beforeLive')).toBe(true);
    expect(await live.getAttribute('aria-pressed')).toBe('true');
    await seen(page, 'tracing-live');

    await live.click();
    await expect.poll(() => new URL(page.url()).searchParams.has('live')).toBe(false);
    await page.getByText(/; refreshed at /).waitFor({ state: 'detached' });
  });

  it('opens a trace of 2,000 spans with only the rows in view in the page, scrolls to its end, and finds a deep span by search', async () => {
    const spans = 2000;
    await enableTracing(api.platform.admin, orgId);
    const key = await orgKey(['traces:write'], 'large-tracer');
    const large = largeAgentTrace(spans);
    const sent = await exportSpans(api.platform.api, { spans: large.spans, key });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(Number(sent.body.partialSuccess?.rejectedSpans ?? 0)).toBe(0);
    const nodes = (tree: { children: unknown[] }[]): number =>
      tree.reduce((sum, node) => sum + 1 + nodes(node.children as { children: unknown[] }[]), 0);
    await eventually(
      async () => {
        const answer = await api.call('GET', `/api/traces/${large.traceId}`, { bearer: key });
        const trace = answer.statusCode === 200 ? answer.json().data : undefined;
        return trace?.span_count === spans && nodes(trace.spans) === spans ? true : undefined;
      },
      30_000,
      'every span of the large trace read back',
    );

    await page.goto(orgPage(`tracing/traces/${large.traceId}`));
    await page.getByRole('heading', { name: large.rootName, level: 1 }).waitFor();
    const grid = page.getByRole('treegrid', { name: 'Spans' });
    const rows = grid.locator('tbody tr');
    const row = (index: number) => grid.locator(`tbody tr[aria-rowindex="${index}"]`);
    await row(2).waitFor();
    // The grid says it has every span's row (and the header's); the page holds those in view.
    expect(await grid.getAttribute('aria-rowcount')).toBe(String(spans + 1));
    const inPage = await rows.count();
    expect(inPage).toBeGreaterThan(5);
    expect(inPage).toBeLessThan(100);
    await seen(page, 'trace-large');

    // Scrolled to the end: the last span, in the scrolling box's view, still few rows in the page.
    const scroller = page.locator('.span-grid-scroll');
    /** Whether a row is wholly inside the scrolling box's view. */
    const inView = async (target: typeof rows) => {
      const [view, box] = [await scroller.boundingBox(), await target.boundingBox()];
      return !!view && !!box && box.y >= view.y && box.y + box.height <= view.y + view.height + 1;
    };
    await scroller.evaluate((box) => {
      box.scrollTop = box.scrollHeight;
    });
    const last = row(spans + 1);
    await last.waitFor();
    expect(await last.getAttribute('data-span-id')).toBe(large.last.spanId);
    expect(await last.getByRole('button', { name: `${large.last.name},`, exact: false }).count()).toBe(1);
    await expect.poll(() => inView(last)).toBe(true);
    expect(await rows.count()).toBeLessThan(100);
    await seen(page, 'trace-large-end');

    // The keys reach every row: Home from the last goes to the first, which Left collapses (its
    // subtree, every other span) and Right expands again.
    const focusedRow = () =>
      page.evaluate('document.activeElement?.closest("tr")?.getAttribute("aria-rowindex")');
    await last.locator('.span-name').focus();
    await page.keyboard.press('Home');
    await expect.poll(focusedRow).toBe('2');
    await page.keyboard.press('End');
    await expect.poll(focusedRow).toBe(String(spans + 1));
    await page.keyboard.press('Home');
    await expect.poll(focusedRow).toBe('2');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => grid.getAttribute('aria-rowcount')).toBe('2');
    expect(await row(2).getAttribute('aria-expanded')).toBe('false');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => grid.getAttribute('aria-rowcount')).toBe(String(spans + 1));
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => grid.getAttribute('aria-rowcount')).toBe('2');

    // Searched: the one span of that name, five levels under the collapsed root, shown and selected,
    // its panel open, the focus left at the search for the next match.
    await page.getByRole('searchbox', { name: 'Find spans by name, model or kind' }).fill('Reconcile_Ledger');
    const status = page.locator('.span-search-status');
    await expect.poll(() => status.textContent()).toBe(`${count(1)} of ${count(spans)} spans match`);
    await page.getByRole('button', { name: 'Next match' }).click();
    await page.waitForURL(new RegExp(`span=${large.deep.spanId}`));
    await expect.poll(() => grid.getAttribute('aria-rowcount')).toBe(String(spans + 1));
    const deep = grid.locator(`tbody tr[data-span-id="${large.deep.spanId}"]`);
    await deep.waitFor();
    expect(await deep.getAttribute('aria-level')).toBe(String(large.deep.depth + 1));
    expect(
      await deep
        .getByRole('button', { name: /^execute_tool reconcile_ledger,/ })
        .getAttribute('aria-pressed'),
    ).toBe('true');
    await expect.poll(() => inView(deep)).toBe(true);
    const kind = page.getByRole('region', { name: large.deep.name }).locator('dt:text-is("Kind") + dd');
    await kind.waitFor();
    expect(await kind.textContent()).toBe('tool');
    expect(await status.textContent()).toContain(`match 1 is selected: ${large.deep.name}`);
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Next match');
    expect(await rows.count()).toBeLessThan(100);
    await seen(page, 'trace-large-search');
  }, 120_000);

  it("reads a session as its conversation, turn by turn, and a user's sessions and latest traces", async () => {
    await enableTracing(api.platform.admin, orgId);
    const key = await orgKey(['traces:write'], 'session-tracer');
    const sent = await exportSpans(api.platform.api, { spans: conversation(), key, format: 'json' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const mini = defaultPrice('gpt-4o-mini');
    const cost = usd((1000 * mini.usdPerMillion.input + 200 * mini.usdPerMillion.output) / 1_000_000);

    await page.goto(`${base}${sessionPath(orgId, 'sess-lisbon')}`);
    const turns = page.locator('ol.turns > li');
    await reloadUntil(async () => (await turns.count()) === 2, 'both turns of the session');
    await page.getByRole('heading', { name: 'Session sess-lisbon', level: 1 }).waitFor();
    expect(await factOf('Traces').textContent()).toBe('2');
    expect(await factOf('Tokens').textContent()).toBe('1,300 in, 230 out');
    expect(await factOf('Cost').textContent()).toBe(cost);
    expect(await factOf('Failed spans').textContent()).toBe('1');

    // In the order they started: the flight, then the hotel.
    const flight = page.getByRole('article', { name: 'ask-flight' });
    const hotel = page.getByRole('article', { name: 'ask-hotel' });
    expect(await turns.nth(0).getByRole('heading', { level: 3 }).textContent()).toBe('ask-flight');
    await flight.getByText('Find me a flight to Lisbon').waitFor();
    await flight.getByText('TP 1352 leaves at 09:40.').waitFor();
    expect(await flight.locator('.turn-figures').textContent()).toContain(cost);
    // The hotel turn's input repeats the flight turn: only what is new shows, the rest one click away.
    await hotel.getByText('And a hotel near the river?').waitFor();
    await hotel.getByText('Memmo Alfama has a room on the 12th.').waitFor();
    expect(await hotel.getByText('Find me a flight to Lisbon').isVisible()).toBe(false);
    expect(await hotel.locator('.turn-figures').textContent()).toContain(`${none}`);
    expect(await hotel.locator('.error-badge').textContent()).toContain('1 failed span');
    await seen(page, 'session');
    await hotel.getByText('The 2 earlier messages it was sent').click();
    await hotel.getByText('Find me a flight to Lisbon').waitFor();
    await seen(page, 'session-earlier-messages');

    // A turn is the way to its trace, and to the span its messages were read from.
    await hotel.getByRole('link', { name: /^From its last generation/ }).click();
    await page.getByRole('heading', { name: 'ask-hotel', level: 1 }).waitFor();
    await page.getByRole('region', { name: 'chat house-model' }).getByText('Memmo Alfama').first().waitFor();
    await page.goBack();
    await flight.getByRole('link', { name: 'ask-flight' }).click();
    await page.getByRole('heading', { name: 'ask-flight', level: 1 }).waitFor();
    await page.goBack();

    // Its user: figures, the session (to its conversation), the newest traces.
    await page.getByRole('link', { name: 'user-ada' }).click();
    await page.waitForURL(new RegExp(`${userPath(orgId, 'user-ada')}$`));
    await page.getByRole('heading', { name: 'User user-ada', level: 1 }).waitFor();
    expect(await factOf('Traces').textContent()).toBe('2');
    expect(await factOf('Sessions').textContent()).toBe('1');
    expect(await factOf('Cost').textContent()).toBe(cost);
    const sessions = page.getByRole('table', { name: 'Sessions' });
    const row = sessions.getByRole('row').filter({ has: page.getByRole('link', { name: 'sess-lisbon' }) });
    expect(await row.getByRole('cell').nth(2).textContent()).toBe('2');
    const latest = page.getByRole('table', { name: 'Latest traces' });
    expect(await latest.locator('tbody th').allTextContents()).toEqual(['ask-hotel', 'ask-flight']);
    await seen(page, 'user');
    await row.getByRole('link', { name: 'sess-lisbon' }).click();
    await page.getByRole('heading', { name: 'Session sess-lisbon', level: 1 }).waitFor();

    // A session the org has none of: the API's 404, said on the page.
    await page.goto(`${base}${sessionPath(orgId, 'sess-nobody-had')}`);
    await page
      .getByRole('alert')
      .getByText(/No session with this id/)
      .waitFor();
    await seen(page, 'session-not-found');
  });

  it('shows a sandbox made with a key, and its live screen showing the desktop', async () => {
    const key = await orgKey(['sandboxes:write'], 'sandbox-bot');
    const created = await api.call('POST', '/api/sandboxes', {
      bearer: key,
      body: { name: 'demo-desktop', metadata: { purpose: 'dashboard-test' } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.id as string;
    const started = await api.call('POST', `/api/sandboxes/${id}/desktop`, {
      bearer: key,
      body: { action: 'start' },
    });
    expect(started.statusCode, started.body).toBe(200);
    await serveTestPage({ runtime: api.runtime, id });
    const button = await openTestPage({ desktop, id });

    await page.goto(orgPage('sandboxes'));
    await page.getByRole('heading', { name: 'Sandboxes', level: 1 }).waitFor();
    const row = page.getByRole('row', { name: /demo-desktop/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('purpose=dashboard-test');
    await seen(page, 'sandboxes');

    await row.getByRole('link', { name: 'demo-desktop' }).click();
    await page.getByRole('heading', { name: 'Sandbox demo-desktop', level: 1 }).waitFor();
    expect(await factOf('Desktop').textContent()).toMatch(/^running, \d+x\d+/);
    await page.getByText('Connected, watching.').waitFor({ timeout: 20_000 });
    // The canvas shows the desktop: the test page's blue button where the desktop has it.
    const at = { x: button.x0 + 12, y: button.y0 + 12 };
    await eventually(
      async () => {
        const rgb = (await page.evaluate(
          `Array.from(document.querySelector('.screen canvas')?.getContext('2d')
            ?.getImageData(${at.x}, ${at.y}, 1, 1).data ?? []).slice(0, 3)`,
        )) as number[];
        // noVNC asks for JPEG-compressed updates: near, not exact.
        return rgb.length === 3 && rgb.every((value, i) => Math.abs(value - colours.button[i]!) <= 24)
          ? true
          : undefined;
      },
      20_000,
      'the button on the canvas',
    );
    await seen(page, 'sandbox-screen');

    await page.getByLabel(/^Control/).check();
    await page.getByText('Connected, in control.').waitFor({ timeout: 20_000 });
  });

  it("stops and starts a sandbox's desktop from its page, with the session", async () => {
    await page.goto(orgPage('sandboxes'));
    await page
      .getByRole('row', { name: /demo-desktop/ })
      .getByRole('link', { name: 'demo-desktop' })
      .click();
    await page.getByRole('heading', { name: 'Sandbox demo-desktop', level: 1 }).waitFor();
    await page.getByText(/^Connected, /).waitFor({ timeout: 20_000 });

    await page.getByRole('button', { name: 'Stop desktop' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'The desktop is stopped.' })
      .waitFor({ timeout: 30_000 });
    expect(await factOf('Desktop').textContent()).toBe('not running');
    await page.getByText('The desktop is not running.').waitFor();
    await seen(page, 'sandbox-desktop-stopped');

    await page.getByRole('button', { name: 'Start desktop' }).click();
    await page.getByText(/^Starting the desktop/).waitFor();
    await page
      .getByRole('status')
      .filter({ hasText: 'The desktop is running.' })
      .waitFor({ timeout: 60_000 });
    expect(await factOf('Desktop').textContent()).toMatch(/^running, \d+x\d+/);
    await page.getByText('Connected, watching.').waitFor({ timeout: 20_000 });
    expect(await page.getByRole('button', { name: 'Stop desktop' }).isEnabled()).toBe(true);
    await seen(page, 'sandbox-desktop-started');
  }, 120_000);

  it("tells a member watching a sandbox's screen that they were removed from the org, when an owner removes them", async () => {
    // Grace: an account with an org of her own, added to Ada's by an operator, in a browser of her own.
    const grace = await signUp(api.platform.api, { name: 'Grace', email: uniqueEmail('grace') });
    await addMember(api.platform.admin, orgId, grace.email, 'member');
    await eventually(
      async () => api.platform.directory.org(orgId)?.members[grace.personId],
      5_000,
      'the member',
    );
    const graceContext = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    try {
      const gracePage = await graceContext.newPage();
      await gracePage.goto(`${base}/login?${new URLSearchParams({ next: `/orgs/${orgId}/sandboxes` })}`);
      await gracePage.getByLabel('Email').fill(grace.email);
      await gracePage.getByLabel('Password').fill(password);
      await gracePage.getByRole('button', { name: 'Log in' }).click();
      await gracePage
        .getByRole('row', { name: /demo-desktop/ })
        .getByRole('link', { name: 'demo-desktop' })
        .click();
      await gracePage.getByRole('heading', { name: 'Sandbox demo-desktop', level: 1 }).waitFor();
      await gracePage.getByText('Connected, watching.').waitFor({ timeout: 20_000 });

      await page.goto(orgPage('settings/members'));
      await page.getByRole('row', { name: /Grace/ }).getByRole('button', { name: 'Remove Grace' }).click();
      const dialog = page.getByRole('dialog', { name: /^Remove Grace from / });
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Remove the member' }).click();
      const removed = gracePage.getByRole('status').filter({
        hasText: 'You were removed from this org, so the screen closed.',
      });
      await removed.waitFor({ timeout: 10_000 });
      // Her page reads the sandbox again every 5 s; that read now answers that she is not a member,
      // said above the page, whose screen keeps its words.
      await gracePage.getByText(`You are not a member of org ${orgId}`).first().waitFor({ timeout: 10_000 });
      expect(await removed.count()).toBe(1);
      expect(await gracePage.getByRole('button', { name: 'Connect again' }).count()).toBe(0);
      await seen(gracePage, 'sandbox-screen-member-removed');
    } finally {
      await graceContext.close();
    }
  }, 60_000);

  it("shows a sandbox's network policy and changes it with the session: egress none, then a deny list", async () => {
    const key = await orgKey(['sandboxes:write'], 'network-bot');
    const created = await api.call('POST', '/api/sandboxes', {
      bearer: key,
      body: { name: 'demo-network', network: { allow: ['pypi.org', '151.101.0.0/16'] } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.id as string;
    const network = async () =>
      (await api.call('GET', `/api/sandboxes/${id}`, { bearer: key })).json().data.network;

    await page.goto(orgPage(`sandboxes/${id}`));
    await page.getByRole('heading', { name: 'Sandbox demo-network', level: 1 }).waitFor();
    expect(await factOf('Network').textContent()).toMatch(/^open: the internet/);
    expect(await factOf('Allowed').textContent()).toBe('pypi.org151.101.0.0/16');
    expect(await page.getByLabel('Allow', { exact: true }).inputValue()).toBe('pypi.org\n151.101.0.0/16');
    await seen(page, 'sandbox-network');

    await page.getByLabel('Egress', { exact: true }).selectOption('none');
    await page.getByLabel('Allow', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Save the network policy' }).click();
    await page.getByText('Saved: the sandbox has this policy now.').waitFor();
    expect(await factOf('Network').textContent()).toBe('none: loopback only');
    expect(await network()).toEqual({ egress: 'none', allow: [], deny: [] });
    expect((await api.runtime.status(id)).network).toEqual({ egress: 'none', allow: [], deny: [] });

    // The API names the entry at fault; the form says which line.
    await page.getByLabel('Egress', { exact: true }).selectOption('open');
    await page.getByLabel('Deny', { exact: true }).fill('Example.COM\nnot a rule');
    await page.getByRole('button', { name: 'Save the network policy' }).click();
    await page.locator('textarea[name="network.deny"][aria-invalid="true"]').waitFor();
    expect(await page.locator('.field-error').textContent()).toMatch(/^Line 2: Invalid network.deny\[1\]/);
    expect(await page.locator('.field-error code').first().textContent()).toBe('network.deny[1]');
    await seen(page, 'sandbox-network-error');
    expect(await network()).toEqual({ egress: 'none', allow: [], deny: [] });

    await page.getByLabel('Deny', { exact: true }).fill('Example.COM\n198.51.100.7');
    await page.getByRole('button', { name: 'Save the network policy' }).click();
    await page.getByText('Saved: the sandbox has this policy now.').waitFor();
    const denied = { egress: 'open', allow: [], deny: ['example.com', '198.51.100.7/32'] };
    expect(await network()).toEqual(denied);
    expect((await api.runtime.status(id)).network).toEqual(denied);
    expect(await factOf('Denied').textContent()).toBe('example.com198.51.100.7/32');
  });

  it('lists templates, shows the one a sandbox was made from, and deletes one nothing stands on', async () => {
    const key = await orgKey(['sandboxes:write'], 'template-bot');
    const call = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown) =>
      api.call(method, url, { bearer: key, ...(body === undefined ? {} : { body }) });
    const source = (await call('POST', '/api/sandboxes', { name: 'demo-template-source' })).json().data;
    const snapshot = await call('POST', `/api/sandboxes/${source.id}/snapshot`, { name: 'demo-app' });
    expect(snapshot.statusCode, snapshot.body).toBe(201);
    const template = snapshot.json().data;
    const made = await call('POST', '/api/sandboxes', { name: 'demo-from-template', template: 'demo-app' });
    expect(made.statusCode, made.body).toBe(201);

    await page.goto(orgPage(`sandboxes/${made.json().data.id}`));
    await page.getByRole('heading', { name: 'Sandbox demo-from-template', level: 1 }).waitFor();
    await factOf('Template').getByText('demo-app').waitFor();

    await page.goto(orgPage('templates'));
    await page.getByRole('heading', { name: 'Templates', level: 1 }).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'demo-app' });
    expect(await row.getByRole('cell').nth(0).textContent()).toBe('ready');
    expect(await row.getByRole('cell').nth(1).textContent()).toBe(`snapshot of ${source.id}`);
    await seen(page, 'templates');

    // In use: the API refuses, naming the sandbox, and the dialog says so.
    await row.getByRole('button', { name: 'Delete demo-app' }).click();
    await page.getByRole('button', { name: 'Delete the template' }).click();
    await page.getByRole('dialog').getByText(made.json().data.id).waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();

    await call('DELETE', `/api/sandboxes/${made.json().data.id}`);
    await row.getByRole('button', { name: 'Delete demo-app' }).click();
    await page.getByRole('button', { name: 'Delete the template' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await call('GET', `/api/templates/${template.id}`)).statusCode).toBe(404);
    expect(api.runtime.template(template.id)).toBeUndefined();
    await call('DELETE', `/api/sandboxes/${source.id}`);
  });
});

const text = (key: string, value: string): KeyValue => ({ key, value: { kind: 'string', value } });
const int = (key: string, value: number): KeyValue => ({ key, value: { kind: 'int', value: BigInt(value) } });

/** A chat of its own trace, started `agoMs` before now and a second long. */
function chatAgo(name: string, agoMs: number) {
  const start = BigInt(Date.now() - agoMs) * 1_000_000n;
  return llmSpan({ name, startTimeUnixNano: start, endTimeUnixNano: start + 1_000_000_000n });
}

/** A price Orrery ships, as Settings > Prices lists it. */
function defaultPrice(model: string) {
  const price = defaultPrices.find((row) => row.model === model);
  if (!price) throw new Error(`no default price for ${model}`);
  return price;
}

/** A price's cells in Settings > Prices: input, output, cached input and reasoning. */
const priceCells = (price: UsdPerMillion) => [
  usdPrice(price.input),
  usdPrice(price.output),
  price.cached_input === undefined ? 'as input' : usdPrice(price.cached_input),
  price.reasoning === undefined ? 'as output' : usdPrice(price.reasoning),
];

/**
 * Two traces: an agent's whose chat with gpt-4o-mini (priced by default) has `tokens`, beside a
 * chat with a model no price names (part of its input cached, part of its output reasoning); and
 * a chat with that model alone.
 */
function costTraces(tokens: { input: number; output: number }) {
  const trace = traceId();
  const root = spanId();
  const now = BigInt(Date.now()) * 1_000_000n;
  const ms = (n: number) => now + BigInt(n) * 1_000_000n;
  const chat = (model: string, input: number, output: number, ...more: KeyValue[]) => [
    text('gen_ai.operation.name', 'chat'),
    text('gen_ai.request.model', model),
    int('gen_ai.usage.input_tokens', input),
    int('gen_ai.usage.output_tokens', output),
    ...more,
  ];
  return [
    llmSpan({
      traceId: trace,
      spanId: root,
      name: 'costed-trip',
      startTimeUnixNano: ms(0),
      endTimeUnixNano: ms(900),
      attributes: [text('gen_ai.operation.name', 'invoke_agent')],
    }),
    llmSpan({
      traceId: trace,
      spanId: spanId(),
      parentSpanId: root,
      name: 'chat gpt-4o-mini',
      startTimeUnixNano: ms(20),
      endTimeUnixNano: ms(400),
      attributes: chat('gpt-4o-mini', tokens.input, tokens.output),
    }),
    llmSpan({
      traceId: trace,
      spanId: spanId(),
      parentSpanId: root,
      name: 'chat house-model',
      startTimeUnixNano: ms(450),
      endTimeUnixNano: ms(850),
      attributes: chat(
        'house-model',
        300,
        40,
        int('gen_ai.usage.cache_read.input_tokens', 100),
        int('gen_ai.usage.reasoning.output_tokens', 12),
      ),
    }),
    llmSpan({ name: 'house-chat', attributes: chat('house-model', 50, 5) }),
  ];
}

/** An agent's trace: the agent, a chat that calls a tool and reads its result, and the tool call. */
function agentTrace() {
  const trace = traceId();
  const root = spanId();
  const now = BigInt(Date.now()) * 1_000_000n;
  const ms = (n: number) => now + BigInt(n) * 1_000_000n;
  const context = [text('session.id', 'sess-42'), text('user.id', 'user-7')];
  const messages = (value: unknown) => JSON.stringify(value);
  return [
    llmSpan({
      traceId: trace,
      spanId: root,
      name: 'plan-trip',
      startTimeUnixNano: ms(0),
      endTimeUnixNano: ms(900),
      attributes: [text('gen_ai.operation.name', 'invoke_agent'), ...context],
    }),
    llmSpan({
      traceId: trace,
      spanId: spanId(),
      parentSpanId: root,
      name: 'chat gpt-4o',
      startTimeUnixNano: ms(20),
      endTimeUnixNano: ms(400),
      attributes: [
        text('gen_ai.operation.name', 'chat'),
        text('gen_ai.request.model', 'gpt-4o'),
        { key: 'gen_ai.usage.input_tokens', value: { kind: 'int', value: 42n } },
        { key: 'gen_ai.usage.output_tokens', value: { kind: 'int', value: 7n } },
        text(
          'gen_ai.input.messages',
          messages([
            { role: 'user', parts: [{ type: 'text', content: 'Find me a flight to Lisbon' }] },
            {
              role: 'assistant',
              parts: [{ type: 'tool_call', id: 'call_1', name: 'lookup_flights', arguments: { to: 'LIS' } }],
            },
            {
              role: 'tool',
              parts: [{ type: 'tool_call_response', id: 'call_1', response: 'TP 1352 at 09:40' }],
            },
          ]),
        ),
        text(
          'gen_ai.output.messages',
          messages([
            {
              role: 'assistant',
              parts: [{ type: 'text', content: 'TP 1352 leaves at 09:40.' }],
              finish_reason: 'stop',
            },
          ]),
        ),
        ...context,
      ],
    }),
    llmSpan({
      traceId: trace,
      spanId: spanId(),
      parentSpanId: root,
      name: 'execute_tool lookup_flights',
      startTimeUnixNano: ms(450),
      endTimeUnixNano: ms(850),
      attributes: [
        text('gen_ai.operation.name', 'execute_tool'),
        text('gen_ai.tool.name', 'lookup_flights'),
        text('gen_ai.tool.call.arguments', '{"to": "LIS"}'),
        text('gen_ai.tool.call.result', 'TP 1352 at 09:40'),
        ...context,
      ],
    }),
  ];
}

/**
 * A session of two turns, a minute apart, of user-ada: a flight asked for and found (gpt-4o-mini,
 * priced by default), then a hotel, whose chat is sent the flight turn again (a model without a
 * price) beside a failed tool call.
 */
function conversation() {
  const start = BigInt(Date.now() - 120_000) * 1_000_000n;
  const ms = (n: number) => start + BigInt(n) * 1_000_000n;
  const context = [text('session.id', 'sess-lisbon'), text('user.id', 'user-ada')];
  const message = (role: string, content: string) => ({ role, parts: [{ type: 'text', content }] });
  const turn = (
    at: number,
    name: string,
    model: string,
    tokens: [number, number],
    input: unknown[],
    answer: string,
  ) => {
    const trace = traceId();
    const root = spanId();
    return {
      trace,
      root,
      spans: [
        llmSpan({
          traceId: trace,
          spanId: root,
          name,
          startTimeUnixNano: ms(at),
          endTimeUnixNano: ms(at + 2000),
          attributes: [text('gen_ai.operation.name', 'invoke_agent'), ...context],
        }),
        llmSpan({
          traceId: trace,
          spanId: spanId(),
          parentSpanId: root,
          name: `chat ${model}`,
          startTimeUnixNano: ms(at + 100),
          endTimeUnixNano: ms(at + 1500),
          attributes: [
            text('gen_ai.operation.name', 'chat'),
            text('gen_ai.request.model', model),
            int('gen_ai.usage.input_tokens', tokens[0]),
            int('gen_ai.usage.output_tokens', tokens[1]),
            text('gen_ai.input.messages', JSON.stringify(input)),
            text('gen_ai.output.messages', JSON.stringify([message('assistant', answer)])),
            ...context,
          ],
        }),
      ],
    };
  };
  const flight = turn(
    0,
    'ask-flight',
    'gpt-4o-mini',
    [1000, 200],
    [message('user', 'Find me a flight to Lisbon')],
    'TP 1352 leaves at 09:40.',
  );
  const hotel = turn(
    60_000,
    'ask-hotel',
    'house-model',
    [300, 30],
    [
      message('user', 'Find me a flight to Lisbon'),
      message('assistant', 'TP 1352 leaves at 09:40.'),
      message('user', 'And a hotel near the river?'),
    ],
    'Memmo Alfama has a room on the 12th.',
  );
  const failedTool = llmSpan({
    traceId: hotel.trace,
    spanId: spanId(),
    parentSpanId: hotel.root,
    name: 'execute_tool search_hotels',
    startTimeUnixNano: ms(60_000 + 1600),
    endTimeUnixNano: ms(60_000 + 1900),
    attributes: [text('gen_ai.operation.name', 'execute_tool'), text('gen_ai.tool.name', 'search_hotels')],
    status: { code: 2, message: 'hotel API timed out' },
  });
  return [...flight.spans, ...hotel.spans, failedTool];
}
