import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceGrantType } from '../../api/people/device-routes.ts';
import { deviceLoginTiming } from '../../domain/people/device-login.ts';
import { launchChromium } from '../harness/browser.ts';
import { buildDashboard, noneLoading, screenshotFolder } from '../harness/dashboard.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { freePort } from '../harness/ports.ts';
import { password, uniqueEmail } from '../int/people/given.ts';
import { type TestClock, testClock } from '../int/sandboxes/given.ts';

// The dashboard as a person uses it (issue 15, items 3 and 4): built with Vite, served by the API
// under / on a loopback port, in real Chromium. Sign up, a form error at its field, a key made in
// Settings and used, a member invited through the link and removed, a command-line login approved
// on /device and its key used, and an ended session sending the page to log in and back. axe-core
// checks every page seen (no serious or critical violation), and each is saved as a screenshot
// in test-results/dashboard/ for a reviewer to look at. The data pages (Playground, Billing,
// Requests, Tracing, Sandboxes) are driven in dashboard-pages.e2e.test.ts.

const screenshots = screenshotFolder('test-results/dashboard');
const { seen } = screenshots;

let platform: TestPlatform;
let clock: TestClock;
let browser: Browser;
let base: string;
let built: Awaited<ReturnType<typeof buildDashboard>> | undefined;

beforeAll(async () => {
  built = await buildDashboard();
  clock = testClock();
  platform = await startTestPlatform({ clock: clock.now, dashboardRoot: built.root });
  base = await platform.api.listen({ host: '127.0.0.1', port: await freePort() });
  browser = await launchChromium((line) => process.stderr.write(`[browser] ${line}\n`));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  built?.remove();
  if (screenshots.count() > 0)
    process.stderr.write(`[dashboard] ${screenshots.count()} screenshots in ${screenshots.dir}\n`);
});

/** The text of what describes a field (its hint and its error), as a screen reader reads it. */
async function descriptionOf(page: Page, field: ReturnType<Page['locator']>): Promise<string> {
  const ids = (await field.getAttribute('aria-describedby')) ?? '';
  const texts = await Promise.all(
    ids
      .split(' ')
      .filter(Boolean)
      .map((id) => page.locator(`[id="${id}"]`).textContent()),
  );
  return texts.join(' ');
}

const activeElement = (page: Page) =>
  page.evaluate(
    '({ tag: document.activeElement.tagName, name: document.activeElement.getAttribute("name"), id: document.activeElement.id, text: document.activeElement.textContent })',
  ) as Promise<{
    tag: string;
    name: string | null;
    id: string;
    text: string;
  }>;

const owner = { name: 'Ada', email: uniqueEmail('ada'), org: `Analytical Engines ${Date.now() % 100_000}` };
let ownerContext: BrowserContext;
let ownerPage: Page;
let orgId: string;
const invitee = { name: 'Grace', email: uniqueEmail('grace') };

const me = (key: string) => fetch(`${base}/api/me`, { headers: { authorization: `Bearer ${key}` } });

describe('the dashboard', () => {
  it('sends a visitor to log in, and signs up through the page into Settings of a new org', async () => {
    ownerContext = await browser.newContext();
    ownerPage = await ownerContext.newPage();
    const page = ownerPage;
    await page.goto(`${base}/`);
    await page.waitForURL(`${base}/login`);
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await seen(page, 'login');

    await page.getByRole('link', { name: 'Sign up' }).click();
    await page.waitForURL(`${base}/signup`);
    await seen(page, 'signup');
    await page.getByLabel('Your name').fill(owner.name);
    await page.getByLabel('Email', { exact: true }).fill(owner.email);
    await page.getByLabel('Password').fill(password);
    await page.getByLabel('Org name (optional)').fill(owner.org);
    await page.getByRole('button', { name: 'Sign up' }).click();

    await page.waitForURL(/\/orgs\/[^/]+\/settings\/keys$/);
    orgId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]!);
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    await page.getByText('This org has no keys yet.').waitFor();
    expect(await page.locator('.org-switcher summary').textContent()).toContain(owner.org);
    await seen(page, 'settings-keys');
  });

  it('shows the API message at the field it names: a taken email, a short password', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/signup`);
    await page.getByLabel('Your name').fill('Someone else');
    const email = page.getByLabel('Email', { exact: true });
    await email.fill(owner.email.toUpperCase());
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.locator('input[name="email"][aria-invalid="true"]').waitFor();
    expect(await descriptionOf(page, email)).toContain('An account with this email exists: log in instead.');
    await expect.poll(async () => (await activeElement(page)).name).toBe('email');
    await seen(page, 'signup-email-taken');

    await email.fill(uniqueEmail('someone'));
    const passwordField = page.getByLabel('Password');
    await passwordField.fill('short');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.locator('input[name="password"][aria-invalid="true"]').waitFor();
    expect(await descriptionOf(page, passwordField)).toContain('must be at least 10 characters');
    // The email is no longer at fault.
    expect(await email.getAttribute('aria-invalid')).toBeNull();
    await context.close();
  });

  it('creates a key with inference:invoke in Settings, shown once, that the API takes; then revokes it', async () => {
    const page = ownerPage;
    await page.getByLabel('Name', { exact: true }).fill('laptop');
    // No scope chosen: the API's message is shown in the scopes' group.
    await page.getByRole('button', { name: 'Create the key' }).click();
    const scopes = page.getByRole('group', { name: 'Scopes' });
    await scopes.locator('.field-error').waitFor();
    expect(await descriptionOf(page, scopes)).toMatch(/^scopes: /);

    await page.getByLabel(/inference:invoke/).check();
    await page.getByRole('button', { name: 'Create the key' }).click();
    const shown = page.getByLabel('The new API key');
    await shown.waitFor();
    const key = await shown.inputValue();
    await seen(page, 'key-created');
    const answer = await me(key);
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { data: unknown }).data).toMatchObject({
      org: { id: orgId },
      key: { scopes: ['inference:invoke'] },
    });

    await page.getByRole('button', { name: 'Done, I have copied it' }).click();
    await shown.waitFor({ state: 'detached' });
    const row = page.getByRole('row', { name: /laptop/ });
    expect(await row.textContent()).toContain(owner.name);
    await row.getByRole('button', { name: 'Revoke laptop' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke the key “laptop”?' });
    await dialog.waitFor();
    // The focus starts on Cancel: Enter destroys nothing.
    await expect.poll(async () => (await activeElement(page)).text).toBe('Cancel');
    await seen(page, 'key-revoke-dialog');
    await dialog.getByRole('button', { name: 'Revoke the key' }).click();
    await dialog.waitFor({ state: 'detached' });
    await row.getByText('Revoked').waitFor();
    await eventually(
      async () => ((await me(key)).status === 401 ? true : undefined),
      5_000,
      'the key refused',
    );
  });

  it('invites a member by email: the link signs them up into the org, and the owner removes them', async () => {
    const page = ownerPage;
    await page.getByRole('link', { name: 'Members' }).click();
    await page.waitForURL(/\/settings\/members$/);
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    await seen(page, 'members');

    await page.getByLabel('Their email').fill(invitee.email);
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    const linkField = page.getByLabel('The invitation link');
    await linkField.waitFor();
    const link = await linkField.inputValue();
    expect(link.startsWith(`${base}/invitations/`)).toBe(true);
    await page.getByRole('row', { name: new RegExp(invitee.email, 'i') }).waitFor();
    await seen(page, 'invitation-link');

    const inviteeContext = await browser.newContext();
    const inviteePage = await inviteeContext.newPage();
    await inviteePage.goto(link);
    // The page says what the link invites to (GET /api/invitations/:token), the email filled in.
    await inviteePage.getByRole('heading', { name: `Join ${owner.org}` }).waitFor();
    await inviteePage.getByText(`${owner.org} invites ${invitee.email} as a member.`).waitFor();
    expect(await inviteePage.getByLabel('Email', { exact: true }).inputValue()).toBe(
      invitee.email.toLowerCase(),
    );
    await seen(inviteePage, 'invitation-signup');
    await inviteePage.getByLabel('Your name').fill(invitee.name);
    await inviteePage.getByLabel('Password').fill(password);
    await inviteePage.getByRole('button', { name: 'Sign up and join' }).click();
    await inviteePage.waitForURL(`${base}/orgs/${orgId}/settings/keys`);
    await inviteePage.getByRole('heading', { name: 'Settings' }).waitFor();
    expect(await inviteePage.locator('.org-switcher summary').textContent()).toContain(
      `${owner.org} (member)`,
    );
    await seen(inviteePage, 'invitee-in-org');

    await page.reload();
    const row = page.getByRole('row', { name: /Grace/ });
    await row.waitFor();
    await row.getByRole('button', { name: 'Remove Grace' }).click();
    const dialog = page.getByRole('dialog', { name: `Remove Grace from ${owner.org}?` });
    await dialog.waitFor();
    await seen(page, 'member-remove-dialog');
    await dialog.getByRole('button', { name: 'Remove the member' }).click();
    await row.waitFor({ state: 'detached' });

    // Their page, reloaded, no longer has the org.
    await inviteePage.reload();
    await inviteePage.getByRole('heading', { name: 'You belong to no org' }).waitFor();
    await seen(inviteePage, 'removed-member');
    await inviteeContext.close();
  });

  it('approves a command-line login on /device; the tool collects a key without inference:invoke', async () => {
    const login = await startDeviceLogin();
    expect(login.verification_uri_complete).toBe(`${base}/device?code=${login.user_code}`);
    const page = ownerPage;
    await page.goto(login.verification_uri_complete);
    await page.getByRole('heading', { name: 'orrery-cli asks to log in as you' }).waitFor();
    expect(await page.getByLabel('Code shown in your terminal').inputValue()).toBe(login.user_code);
    expect(await page.getByLabel('Org the tool gets a key for').inputValue()).toBe(orgId);
    await seen(page, 'device');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Approved. Go back to your terminal').waitFor();
    await seen(page, 'device-approved');

    const token = await collect(login.device_code);
    expect(token).toMatchObject({ token_type: 'Bearer', org_id: orgId });
    const answer = await me(token.access_token);
    const { data } = (await answer.json()) as { data: { key: { scopes: string[] } } };
    expect(data.key.scopes).toEqual(['traces:write', 'sandboxes:write']);
  });

  it('takes a typed code on /device, says at the field when there is no such login, and denies one', async () => {
    const page = ownerPage;
    await page.goto(`${base}/device`);
    const code = page.getByLabel('Code shown in your terminal');
    await code.fill('bbbb bbbb');
    await page.getByRole('button', { name: 'Look up the code' }).click();
    await page.locator('input[name="userCode"][aria-invalid="true"]').waitFor();
    expect(await descriptionOf(page, code)).toContain('No login with this code');
    await seen(page, 'device-unknown-code');

    const login = await startDeviceLogin();
    await code.fill(login.user_code.toLowerCase().replace('-', ' '));
    await code.press('Enter');
    await page.getByRole('heading', { name: 'orrery-cli asks to log in as you' }).waitFor();
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('Denied.').waitFor();
    clock.advance(deviceLoginTiming.intervalSeconds + 1);
    const polled = await poll(login.device_code);
    expect(await polled.json()).toMatchObject({ error: 'access_denied' });
  });

  it('reaches every page of the navigation from the keyboard, each heading taking the focus', async () => {
    const page = ownerPage;
    await page.goto(`${base}/orgs/${orgId}/settings`);
    await page.waitForURL(`${base}/orgs/${orgId}/settings/keys`);
    // The first Tab reaches the skip link, which takes the focus to the page.
    await page.keyboard.press('Tab');
    await expect.poll(async () => (await activeElement(page)).text).toBe('Skip to the page');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await activeElement(page)).id).toBe('main');

    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const [link, slug] of [
      ['Playground', 'playground'],
      ['Billing', 'billing'],
      ['Requests', 'endpoints/requests'],
      ['Tracing', 'tracing'],
      ['Sandboxes', 'sandboxes'],
    ] as const) {
      // Reached by the keyboard: focused, then Enter.
      await nav.getByRole('link', { name: link }).focus();
      await page.keyboard.press('Enter');
      await page.waitForURL(`${base}/orgs/${orgId}/${slug}`);
      await page.getByRole('heading', { name: link, level: 1 }).waitFor();
      // The new page's heading takes the focus (once the page's effect runs), for a screen reader
      // to say where the person is.
      await expect.poll(() => activeElement(page)).toMatchObject({ tag: 'H1', text: link });
      expect(await nav.getByRole('link', { name: link }).getAttribute('aria-current')).toBe('page');
      await noneLoading(page);
      await seen(page, `empty-${slug.replace('/', '-')}`);
    }
  });

  it('sends the page to log in when the session ended elsewhere, and back where it was after logging in', async () => {
    const page = ownerPage;
    await page.goto(`${base}/orgs/${orgId}/settings/members`);
    await page.getByRole('heading', { name: 'Members' }).waitFor();

    // Another tab of the same browser logs out.
    const other = await ownerContext.newPage();
    await other.goto(`${base}/`);
    await other.getByRole('button', { name: 'Log out' }).click();
    await other.waitForURL(`${base}/login`);
    await other.close();

    // The first tab's next call answers 401.
    await page.getByRole('link', { name: 'API keys' }).click();
    const next = `/orgs/${orgId}/settings/keys`;
    await page.waitForURL(`${base}/login?next=${encodeURIComponent(next)}`);
    await page.getByText('Log in to continue where you were.').waitFor();
    await seen(page, 'login-after-session-ended');
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${base}${next}`);
    await page.getByRole('heading', { name: 'Keys' }).waitFor();
    await page.getByRole('row', { name: /laptop/ }).waitFor();
  });

  it('reads the session again when another tab logged in as someone else, whose CSRF token it lacked', async () => {
    const page = ownerPage;
    // Another tab of the same browser logs in as Grace: the cookie is hers now.
    const other = await ownerContext.newPage();
    await other.goto(`${base}/login`);
    const login = await other.evaluate(
      `fetch('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify(${JSON.stringify({ email: invitee.email, password })}) }).then((r) => r.status)`,
    );
    expect(login).toBe(200);
    await other.close();

    // The first tab still shows Ada's keys; what it sends next carries Ada's CSRF token.
    await page.getByLabel('Name', { exact: true }).fill('after the switch');
    await page.getByLabel(/traces:write/).check();
    await page.getByRole('button', { name: 'Create the key' }).click();
    // Refused, the page reads the session again: Grace's, who belongs to no org any more.
    await page.getByRole('heading', { name: 'You belong to no org' }).waitFor();
    expect(await page.locator('.person-name').textContent()).toBe(invitee.name);
    // And nothing was made with the stale token.
    const names = Object.values(platform.directory.org(orgId)!.keys).map((key) => key.name);
    expect(names).toContain('laptop');
    expect(names).not.toContain('after the switch');
  });
});

interface DeviceLoginStarted {
  device_code: string;
  user_code: string;
  verification_uri_complete: string;
}

async function startDeviceLogin(): Promise<DeviceLoginStarted> {
  const answer = await fetch(`${base}/api/auth/device/code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: 'orrery-cli' }),
  });
  expect(answer.status).toBe(200);
  return (await answer.json()) as DeviceLoginStarted;
}

/** As an OAuth client polls: a form body. */
const poll = (deviceCode: string) =>
  fetch(`${base}/api/auth/device/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: deviceGrantType,
      device_code: deviceCode,
      client_id: 'orrery-cli',
    }),
  });

/** Polls as the CLI does, each poll an interval later on the test's clock, until the key comes. */
function collect(deviceCode: string) {
  return eventually(
    async () => {
      clock.advance(deviceLoginTiming.intervalSeconds + deviceLoginTiming.slowDownSeconds + 1);
      const answer = await poll(deviceCode);
      const body = (await answer.json()) as { error?: string };
      if (answer.status === 200) return body as { access_token: string; token_type: string; org_id: string };
      if (body.error === 'authorization_pending' || body.error === 'slow_down') return undefined;
      throw new Error(`the login failed: ${JSON.stringify(body)}`);
    },
    10_000,
    'the command-line login to give its key',
  );
}
