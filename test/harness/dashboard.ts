import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { build } from 'vite';
import { expect } from 'vitest';
import { eventually } from './eventually.ts';

// What the dashboard's end-to-end tests share: the app built as `npm start` builds it, and
// `seen`, which runs axe-core on a page as it is (no serious or critical violation) and saves it
// as the next screenshot in the test file's folder under test-results/.

const dashboard = join(import.meta.dirname, '../../packages/dashboard');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Builds the dashboard into a folder of its own; answers it and how to remove it. */
export async function buildDashboard(): Promise<{ root: string; remove: () => void }> {
  const root = mkdtempSync(join(tmpdir(), 'orrery-dashboard-'));
  // React's production build, which Vite makes only under that NODE_ENV (the tests run under `test`).
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ root: dashboard, logLevel: 'warn', build: { outDir: root, emptyOutDir: true } });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** Waits until no part of the page says it is loading. */
export async function noneLoading(page: Page): Promise<void> {
  await eventually(
    async () => ((await page.locator('main .loading').count()) === 0 ? true : undefined),
    10_000,
    'the page loaded',
  );
}

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * A screenshot folder (relative to the repository) whose earlier screenshots are removed, and
 * only those: another file's folder inside it is left alone.
 */
export function screenshotFolder(folder: string) {
  const dir = resolve(folder);
  mkdirSync(dir, { recursive: true });
  for (const file of readdirSync(dir)) if (file.endsWith('.png')) rmSync(join(dir, file));
  let shots = 0;
  return {
    dir,
    count: () => shots,
    /** The page as it is now: no serious or critical axe-core violation, and saved as the next screenshot. */
    async seen(page: Page, name: string): Promise<void> {
      // Evaluated by the browser's debugger, which the page's Content-Security-Policy does not limit.
      if ((await page.evaluate('typeof axe')) === 'undefined') await page.evaluate(axeSource);
      const violations =
        (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
        result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
          nodes: v.nodes.map((node) => node.target.join(' ')) })))`)) as Violation[];
      const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      shots += 1;
      await page.screenshot({
        path: join(dir, `${String(shots).padStart(2, '0')}-${name}.png`),
        fullPage: true,
      });
      expect(serious, `${name}: ${JSON.stringify(serious, null, 2)}`).toEqual([]);
    },
  };
}
