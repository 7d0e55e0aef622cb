import { expect } from 'vitest';
import type { AccessibilityNode } from '../../../domain/sandboxes/accessibility.ts';
import { createDesktop } from '../../../sandbox-runtime/desktop/index.ts';
import { eventually } from '../../harness/platform.ts';
import { givenRuntime, sandboxId } from '../sandboxes-runtime/given.ts';
import { colours, testPage } from './page.ts';
import { type Box, decodePng, findColour, type Image, type Rgb } from './png.ts';

// A real sandbox with a real desktop (Xvfb, openbox, x11vnc, Chromium, the panel) for one test
// file, and the test page (page.ts) served from inside it: a sandbox never reaches the host's
// services.

export { prepareTimeoutMs, refusal } from '../sandboxes-runtime/given.ts';
export { colours, testPage } from './page.ts';

export const pageUrl = 'http://127.0.0.1:8000/page.html';

export function givenDesktop(label: string) {
  const given = givenRuntime();
  const id = sandboxId(label);
  return { ...given, id, desktop: createDesktop(given.runtime) };
}

type Given = ReturnType<typeof givenDesktop>;

/** Serves the test page from inside the sandbox with Python's http.server on port 8000. */
export async function serveTestPage({ runtime, id }: Pick<Given, 'runtime' | 'id'>): Promise<void> {
  await runtime.writeFile(id, '/srv/www/page.html', testPage);
  const serve =
    'cd /srv/www && setsid python3 -m http.server 8000 --bind 127.0.0.1 </dev/null >/tmp/http.log 2>&1 &';
  await runtime.exec(id, serve);
  const check = `python3 -c "import urllib.request; urllib.request.urlopen('${pageUrl}')"`;
  await eventually(async () => ((await runtime.exec(id, check)).result.exit_code === 0 ? true : undefined));
}

export async function screen({ desktop, id }: Pick<Given, 'desktop' | 'id'>): Promise<Image> {
  return decodePng((await desktop.screenshot(id)).png);
}

/** Opens the test page in a new tab and waits until its button shows; answers the button's box. */
export async function openTestPage(given: Pick<Given, 'desktop' | 'id'>): Promise<Box> {
  await given.desktop.input(given.id, { action: 'open', urls: [pageUrl] });
  return eventually(async () => findColour(await screen(given), colours.button), 20_000, 'the test page');
}

export async function tree({ desktop, id }: Given): Promise<AccessibilityNode> {
  return desktop.accessibilityTree(id, { depth: 200, includeHidden: false });
}

export function findNode(
  node: AccessibilityNode,
  test: (node: AccessibilityNode) => boolean,
): AccessibilityNode | undefined {
  if (test(node)) return node;
  for (const child of node.children) {
    const found = findNode(child, test);
    if (found) return found;
  }
  return undefined;
}

export async function node(given: Given, role: string, name: string): Promise<AccessibilityNode> {
  const found = findNode(await tree(given), (n) => n.role === role && n.name === name);
  expect(found, `a ${role} named ${name}`).toBeDefined();
  return found as AccessibilityNode;
}

export function sameColour(actual: Rgb, expected: Rgb): boolean {
  return actual.every((value, i) => value === expected[i]);
}
