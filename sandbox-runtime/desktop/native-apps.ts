import { readFileSync } from 'node:fs';
import {
  type AccessibilityNode,
  buildTree,
  checkNodeAction,
  describeNode,
  type NodeActionResult,
  type TreeOptions,
} from '../../domain/sandboxes/accessibility.ts';
import { type AtspiNode, operationFor, toAXNodes } from '../../domain/sandboxes/atspi-nodes.ts';
import { SandboxError } from '../../domain/sandboxes/errors.ts';
import type { SandboxRuntime } from '../runtime.ts';
import { quote, runShell, ShellFailed, shellWords } from './shell.ts';

// The accessibility of the desktop's own apps (spec, "Desktop methods": `accessibility.tree({
// app })`, `accessibility.act`): the terminal, the text editor and the file manager are GTK 3
// apps on the accessibility bus (AT-SPI), read and acted on by atspi.py inside the sandbox, and
// answered in the browser's tree shape (domain/sandboxes/atspi-nodes.ts). Every call is one exec
// of Python (about 0.2–0.5 s); an action is two (find and check the node, then act), like the
// browser's, with nothing stored between calls.
//
// Decisions where the spec is silent:
// - `app` names an app by its accessible name or its program (`xfce4-terminal`, `mousepad`,
//   `thunar`, or any other app on the bus), or by a word in `appAliases` (`terminal`, `editor`,
//   `files`); when it runs twice, the one with the active window. Its tree's root is the app,
//   its windows are the children.
// - `press` does the node's own action (`click`, `activate`, …), `focus` grabs the keyboard
//   focus, `set-text` replaces an editable text's contents, `expand`/`collapse` a tree row's
//   `expand or contract`, `increment`/`decrement` move a slider by its step.

const program = readFileSync(new URL('./atspi.py', import.meta.url), 'utf8');

/** Words for the desktop's apps → the program they name. */
export const appAliases: Readonly<Record<string, string>> = {
  terminal: 'xfce4-terminal',
  editor: 'mousepad',
  'text-editor': 'mousepad',
  files: 'thunar',
  'file-manager': 'thunar',
};

export interface NativeApp {
  name: string;
  pid: number;
  program: string;
  active: boolean;
}

interface Answer {
  apps: NativeApp[];
  app?: NativeApp | null;
  tree?: AtspiNode | null;
  node?: AtspiNode | null;
  done?: boolean;
}

function refused(message: string): SandboxError {
  return new SandboxError('desktop_refused', { message });
}

/**
 * Runs atspi.py. The session bus address is one that leads nowhere: the accessibility bus is
 * found through the display, and a desktop without one (started before the desktop had apps)
 * must not make libdbus start a session bus of its own. Such a desktop has no native apps.
 */
async function atspi(runtime: SandboxRuntime, sandboxId: string, args: readonly string[]): Promise<Answer> {
  const script = `DBUS_SESSION_BUS_ADDRESS=${quote('unix:path=/nonexistent')} ${shellWords(['python3', '-c', program, ...args])}`;
  const result = await runShell(runtime, sandboxId, script, 30);
  if (result.exitCode !== 0) {
    if (/accessibility bus/i.test(result.stderr)) return { apps: [] };
    throw new ShellFailed(result);
  }
  return JSON.parse(result.stdout) as Answer;
}

/** What `app` may be called: its own name, its program, and the words that alias it. */
export function namesFor(app: string): string[] {
  const wanted = app.toLowerCase();
  return [wanted, ...(appAliases[wanted] === undefined ? [] : [appAliases[wanted]])];
}

/** How an app may be named in `app=`, for the refusal that lists them. */
export function appLabel(app: NativeApp): string {
  const alias = Object.entries(appAliases).find(([, program]) => program === app.program)?.[0];
  return `${app.name} (app=${alias ?? app.name})`;
}

/**
 * The tree of the native app `app` names, or the apps that run when none is named so (then the
 * caller looks for a browser tab of that name).
 */
export async function readNativeTree(
  runtime: SandboxRuntime,
  sandboxId: string,
  app: string,
  options: TreeOptions,
): Promise<{ tree?: AccessibilityNode; apps: NativeApp[] }> {
  const answer = await atspi(runtime, sandboxId, [
    'tree',
    options.includeHidden ? '1' : '0',
    ...namesFor(app),
  ]);
  if (!answer.app || !answer.tree) return { apps: answer.apps };
  const root = { ...answer.tree, role: 'application' };
  const tree = buildTree(toAXNodes(answer.app.pid, root), options);
  return {
    tree: tree ?? describeNode(toAXNodes(answer.app.pid, { ...root, children: [] })[0]!),
    apps: answer.apps,
  };
}

/** Acts on the native node `ref` names (`target`: its app's process and object id). */
export async function actOnNativeNode(
  runtime: SandboxRuntime,
  sandboxId: string,
  target: { pid: number; id: number },
  request: { ref: string; action: string; text?: string },
): Promise<NodeActionResult> {
  const { ref, action } = request;
  const gone = () => refused(`Node ${ref} is no longer in the app: read the accessibility tree again.`);
  const where = [String(target.pid), String(target.id)];
  const found = (await atspi(runtime, sandboxId, ['node', ...where])).node;
  if (!found) throw gone();
  const node = describeNode(toAXNodes(target.pid, { ...found, children: [] })[0]!);
  const allowed = checkNodeAction(node, action);
  if (!allowed.ok) throw refused(allowed.message);
  if (action === 'read') return { ref, action, ok: true, value: node.value ?? node.name };
  const operation = operationFor(found, action, request.text ?? '');
  if (operation === undefined) throw refused(`Node ${ref} (${node.role}) cannot \`${action}\`.`);
  const args = 'arg' in operation ? [operation.op, operation.arg] : [operation.op];
  const answer = await atspi(runtime, sandboxId, ['act', ...where, ...args]);
  if (!answer.node) throw gone();
  if (!answer.done) throw refused(`Node ${ref} (${node.role}) could not \`${action}\`: the app refused it.`);
  return { ref, action, ok: true };
}
