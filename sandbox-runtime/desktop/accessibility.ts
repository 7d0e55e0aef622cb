import {
  type AccessibilityNode,
  buildTree,
  checkNodeAction,
  type NodeActionResult,
  parseRef,
} from '../../domain/sandboxes/accessibility.ts';
import { parseNativeRef } from '../../domain/sandboxes/atspi-nodes.ts';
import type { AXNode } from '../../domain/sandboxes/ax-nodes.ts';
import { SandboxError } from '../../domain/sandboxes/errors.ts';
import type { SandboxRuntime } from '../runtime.ts';
import { activePage, type Cdp, CdpError, type PageTarget, pages, withBrowser } from './cdp.ts';
import { actOnNativeNode, appLabel, type NativeApp, readNativeTree } from './native-apps.ts';

// The accessibility tree of the desktop's browser and actions on its nodes (spec, "Desktop
// methods": `accessibility.tree`, `accessibility.act`; the format is domain/sandboxes/
// accessibility.ts). The tree is Chrome's `Accessibility.getFullAXTree` of one tab; a node's
// ref is its DOM backend id, so an action finds the element again with nothing stored between
// calls, and a ref whose element is gone (or no longer shown) is `desktop_refused`. The
// desktop's own apps (terminal, editor, file manager) are read over AT-SPI instead
// (native-apps.ts); their refs say so (domain/sandboxes/atspi-nodes.ts).
//
// Decisions where the spec is silent:
// - `app` names the browser (`chromium`, `chrome`, `browser`: its active tab, the default), a
//   native app (native-apps.ts: `terminal`, `editor`, `files`, or an app's own name), or else a
//   tab by a part of its title or URL; anything else is `desktop_refused`, naming the apps and
//   the tabs.
// - Actions apply to the active tab. `press` (and `expand`, `collapse`) clicks the element's
//   centre through the browser's input pipeline (CDP `Input.dispatchMouseEvent`, so pages see a
//   real click, in page coordinates whatever the window's place on the screen); an element
//   without a box is clicked by script instead. `set-text` focuses, selects all and inserts the
//   text (`Input.insertText`, one edit as a paste would be); `increment` and `decrement` focus
//   and press the arrow keys, as a person on a slider would.

const browserNames = new Set(['chromium', 'chrome', 'browser']);

type Session = { cdp: Cdp; sessionId: string };

function refused(message: string): SandboxError {
  return new SandboxError('desktop_refused', { message });
}

/** The tab `app` names, attached; `apps` are the native apps, named in a refusal. */
async function chooseTab(
  cdp: Cdp,
  app: string | undefined,
  apps: readonly NativeApp[] = [],
): Promise<Session> {
  const tabs = await pages(cdp);
  const wanted = app?.toLowerCase();
  const named = (tab: PageTarget) =>
    wanted !== undefined && `${tab.title}\n${tab.url}`.toLowerCase().includes(wanted);
  const candidates = wanted === undefined || browserNames.has(wanted) ? tabs : tabs.filter(named);
  const chosen = await activePage(cdp, candidates);
  if (chosen) return { cdp, sessionId: chosen.sessionId };
  if (candidates.length > 0) {
    throw refused("The browser's tab does not answer (busy or crashed): wait, or reload it, then retry.");
  }
  const titles = tabs.map((tab) => `"${tab.title || tab.url}"`).join(', ') || 'none';
  const others = apps.map((other) => `, ${appLabel(other)}`).join('');
  throw refused(
    `No application or tab named "${app}": the desktop runs chromium (app=chromium)${others}, with tabs ${titles}.`,
  );
}

async function fullTree(session: Session): Promise<AXNode[]> {
  const { nodes } = await session.cdp.send<{ nodes: AXNode[] }>(
    'Accessibility.getFullAXTree',
    {},
    session.sessionId,
  );
  return nodes;
}

type TreeRequest = { app?: string; depth: number; includeHidden: boolean };

/** The tree `options.app` names: the browser's tab (the default), a native app's, or a tab's. */
export async function readAccessibilityTree(
  runtime: SandboxRuntime,
  sandboxId: string,
  devtoolsPath: string,
  options: TreeRequest,
): Promise<AccessibilityNode> {
  const browser = (apps?: NativeApp[]) =>
    withBrowser(runtime, sandboxId, devtoolsPath, (cdp) => readTree(cdp, options, apps));
  if (options.app === undefined || browserNames.has(options.app.toLowerCase())) return browser();
  const native = await readNativeTree(runtime, sandboxId, options.app, options);
  return native.tree ?? browser(native.apps);
}

/** Acts on the node `ref` names: in a native app when the ref says so, else in the browser. */
export async function actOnAccessibilityNode(
  runtime: SandboxRuntime,
  sandboxId: string,
  devtoolsPath: string,
  request: { ref: string; action: string; text?: string },
): Promise<NodeActionResult> {
  const number = parseRef(request.ref);
  if (!number.ok) throw refused(number.message);
  const native = parseNativeRef(number.value);
  if (native) return actOnNativeNode(runtime, sandboxId, native, request);
  return withBrowser(runtime, sandboxId, devtoolsPath, (cdp) => actOnNode(cdp, request));
}

async function readTree(cdp: Cdp, options: TreeRequest, apps?: NativeApp[]): Promise<AccessibilityNode> {
  const session = await chooseTab(cdp, options.app, apps);
  const tree = buildTree(await fullTree(session), options);
  return tree ?? { ref: 'e0', role: 'document', name: '', actions: [], children: [] };
}

function findNode(node: AccessibilityNode, ref: string): AccessibilityNode | undefined {
  if (node.ref === ref) return node;
  for (const child of node.children) {
    const found = findNode(child, ref);
    if (found) return found;
  }
  return undefined;
}

async function actOnNode(
  cdp: Cdp,
  request: { ref: string; action: string; text?: string },
): Promise<NodeActionResult> {
  const { ref, action } = request;
  const backendNodeId = parseRef(ref);
  if (!backendNodeId.ok) throw refused(backendNodeId.message);
  const session = await chooseTab(cdp, undefined);
  const tree = buildTree(await fullTree(session), { depth: 200, includeHidden: true });
  const node = tree && findNode(tree, ref);
  if (!node) throw refused(`Node ${ref} is no longer in the page: read the accessibility tree again.`);
  const allowed = checkNodeAction(node, action);
  if (!allowed.ok) throw refused(allowed.message);
  try {
    if (action === 'read') return { ref, action, ok: true, value: node.value ?? node.name };
    await nodeActions[action]?.(session, backendNodeId.value, request.text ?? '');
    return { ref, action, ok: true };
  } catch (error) {
    // The element went away or changed between reading the tree and acting on it.
    if (error instanceof CdpError) throw refused(`Node ${ref} could not ${action}: ${error.message}.`);
    throw error;
  }
}

type NodeAction = (session: Session, backendNodeId: number, text: string) => Promise<void>;

/** Node action → how it is done (the actions a node may list: domain/sandboxes/ax-nodes.ts). */
const nodeActions: Record<string, NodeAction> = {
  press: click,
  expand: click,
  collapse: click,
  focus: focus,
  'set-text': async (session, backendNodeId, text) => {
    await focus(session, backendNodeId);
    await callOn(session, backendNodeId, selectAll);
    if (text === '') await key(session, backspace);
    else await session.cdp.send('Input.insertText', { text }, session.sessionId);
  },
  increment: async (session, backendNodeId) => {
    await focus(session, backendNodeId);
    await key(session, arrowUp);
  },
  decrement: async (session, backendNodeId) => {
    await focus(session, backendNodeId);
    await key(session, arrowDown);
  },
};

async function focus({ cdp, sessionId }: Session, backendNodeId: number): Promise<void> {
  await cdp.send('DOM.focus', { backendNodeId }, sessionId);
}

async function click(session: Session, backendNodeId: number): Promise<void> {
  const { cdp, sessionId } = session;
  await cdp.send('DOM.scrollIntoViewIfNeeded', { backendNodeId }, sessionId).catch(() => {});
  const quads = await cdp
    .send<{ quads: number[][] }>('DOM.getContentQuads', { backendNodeId }, sessionId)
    .then(
      (answer) => answer.quads,
      () => [],
    );
  const quad = quads.find((points) => points.length === 8);
  if (quad === undefined) return callOn(session, backendNodeId, 'function () { this.click(); }');
  const x = (quad[0]! + quad[2]! + quad[4]! + quad[6]!) / 4;
  const y = (quad[1]! + quad[3]! + quad[5]! + quad[7]!) / 4;
  for (const type of ['mouseMoved', 'mousePressed', 'mouseReleased']) {
    const button = type === 'mouseMoved' ? 'none' : 'left';
    await cdp.send('Input.dispatchMouseEvent', { type, x, y, button, clickCount: 1 }, sessionId);
  }
}

const selectAll = `function () {
  if (typeof this.select === 'function') { this.select(); return; }
  const range = document.createRange(); range.selectNodeContents(this);
  const selection = getSelection(); selection.removeAllRanges(); selection.addRange(range);
}`;

async function callOn(session: Session, backendNodeId: number, functionDeclaration: string) {
  const { cdp, sessionId } = session;
  const { object } = await cdp.send<{ object: { objectId?: string } }>(
    'DOM.resolveNode',
    { backendNodeId },
    sessionId,
  );
  await cdp.send('Runtime.callFunctionOn', { objectId: object.objectId, functionDeclaration }, sessionId);
}

interface KeySpec {
  key: string;
  code: string;
  windowsVirtualKeyCode: number;
}
const backspace: KeySpec = { key: 'Backspace', code: 'Backspace', windowsVirtualKeyCode: 8 };
const arrowUp: KeySpec = { key: 'ArrowUp', code: 'ArrowUp', windowsVirtualKeyCode: 38 };
const arrowDown: KeySpec = { key: 'ArrowDown', code: 'ArrowDown', windowsVirtualKeyCode: 40 };

async function key({ cdp, sessionId }: Session, spec: KeySpec): Promise<void> {
  await cdp.send('Input.dispatchKeyEvent', { type: 'rawKeyDown', ...spec }, sessionId);
  await cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', ...spec }, sessionId);
}
