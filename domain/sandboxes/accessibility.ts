import { type AXNode, nodeActions, roleNames, shapeOf, statesOf, text } from './ax-nodes.ts';
import type { Checked } from './checked.ts';

/**
 * The accessibility tree we expose (answer of `GET …/desktop/accessibility`; the spec leaves the
 * format open), built from the browser's Chrome DevTools Protocol `Accessibility.getFullAXTree`:
 *
 * ```
 * { ref: 'e12', role: 'button', name: 'Send', value?: '…', description?: '…',
 *   states?: ['focusable', 'disabled', …], actions: ['press', 'focus'], children: [ … ],
 *   truncated?: true }
 * ```
 *
 * - `ref` is `e` and the node's DOM backend id: it names the same element for as long as the page
 *   keeps it, with nothing stored between reads. A ref whose element is gone makes the action
 *   fail with `desktop_refused` (read the tree again). The desktop's own apps (terminal, editor,
 *   file manager) answer the same shape from AT-SPI, their refs fifteen digits from 10^14 up
 *   (atspi-nodes.ts).
 * - `role` is the ARIA role Chrome computes; `document` for the page and `text` for text runs.
 * - `states` lists what is true of the node (table `stateOf` in ax-nodes.ts); absent when none is.
 * - `actions` lists what `POST …/accessibility` can do with the node (`press`, `focus`,
 *   `set-text`, `expand`, `collapse`, `increment`, `decrement`); `read` works on every node and
 *   is not listed.
 * - Nodes Chrome ignores as mere layout, and nodes without a DOM element, are left out and their
 *   children take their place. Hidden nodes (not rendered, `aria-hidden`, inert) are left out
 *   with their subtrees unless `include_hidden=true`, which keeps them with the state `hidden`.
 *   A text run repeating its parent's name (a button's label) is left out.
 * - `depth` counts nodes of this tree from the root as 1; a node at the limit whose children are
 *   cut says `truncated: true`.
 */
export interface AccessibilityNode {
  ref: string;
  role: string;
  name: string;
  value?: string;
  description?: string;
  states?: string[];
  actions: string[];
  children: AccessibilityNode[];
  truncated?: true;
}

/** The answer of `POST …/accessibility`; a refused action is a `desktop_refused` error instead. */
export interface NodeActionResult {
  ref: string;
  action: string;
  ok: true;
  /** For `read`: the node's value, or its name when it has none. */
  value?: string;
}

export const refPattern = /^e\d{1,15}$/;

export function refOf(backendDOMNodeId: number): string {
  return `e${backendDOMNodeId}`;
}

/** `e12` → 12, the DOM backend id to resolve with `DOM.resolveNode`. */
export function parseRef(ref: string): Checked<number> {
  return refPattern.test(ref)
    ? { ok: true, value: Number(ref.slice(1)) }
    : { ok: false, message: 'send a ref from the tree, such as `e12`' };
}

export interface TreeOptions {
  /** 1 to 200; the root is at depth 1. */
  depth: number;
  includeHidden: boolean;
}

/** The tree of a `getFullAXTree` result, or `undefined` when it has no node to show. */
export function buildTree(axNodes: readonly AXNode[], options: TreeOptions): AccessibilityNode | undefined {
  const byId = new Map(axNodes.map((node) => [node.nodeId, node]));
  const childIds = new Set(axNodes.flatMap((node) => node.childIds ?? []));
  const root = axNodes.find((node) => !childIds.has(node.nodeId));
  if (!root) return undefined;
  const seen = new Set<string>();

  const childrenOf = (node: AXNode): AXNode[] =>
    (node.childIds ?? []).flatMap((id) => {
      const child = byId.get(id);
      return child && !seen.has(id) ? [child] : [];
    });

  /** Whether `node` would show anything: itself, or a descendant in its place. */
  const shows = (node: AXNode, guard = new Set<string>()): boolean => {
    if (guard.has(node.nodeId)) return false;
    guard.add(node.nodeId);
    const shape = shapeOf(node, options.includeHidden);
    if (shape !== 'lift') return shape === 'keep';
    return (node.childIds ?? []).some((id) => {
      const child = byId.get(id);
      return child !== undefined && shows(child, guard);
    });
  };

  /** Nodes to show for `node` at `depth`: itself, its children in its place, or nothing. */
  const convert = (node: AXNode, depth: number): AccessibilityNode[] => {
    seen.add(node.nodeId);
    const shape = shapeOf(node, options.includeHidden);
    if (shape === 'drop') return [];
    if (shape === 'lift') return childrenOf(node).flatMap((child) => convert(child, depth));
    const out = describeNode(node);
    const children = childrenOf(node);
    if (depth >= options.depth) {
      const label = (child: AXNode) =>
        text(child.role) === 'StaticText' && out.name !== '' && text(child.name) === out.name;
      if (children.some((child) => shows(child) && !label(child))) out.truncated = true;
      return [out];
    }
    out.children = children.flatMap((child) => convert(child, depth + 1)).filter((c) => !repeatsName(c, out));
    return [out];
  };

  const [top, ...rest] = convert(root, 1);
  // A root that is only layout lifts its children; keep them under a bare document node.
  if (top && rest.length === 0) return top;
  return {
    ref: refOf(root.backendDOMNodeId ?? 0),
    role: 'document',
    name: '',
    actions: [],
    children: top ? [top, ...rest] : [],
  };
}

/** One node as the tree shows it, without its children. */
export function describeNode(node: AXNode): AccessibilityNode {
  const role = text(node.role);
  const out: AccessibilityNode = {
    ref: refOf(node.backendDOMNodeId ?? 0),
    role: roleNames[role] ?? role,
    name: text(node.name),
    actions: nodeActions(node),
    children: [],
  };
  const value = text(node.value);
  const description = text(node.description);
  const states = statesOf(node);
  if (value !== '') out.value = value;
  if (description !== '') out.description = description;
  if (states.length > 0) out.states = states;
  return out;
}

/** A text run that only repeats its parent's name, like a button's label. */
function repeatsName(child: AccessibilityNode, parent: AccessibilityNode): boolean {
  return (
    child.role === 'text' && child.children.length === 0 && parent.name !== '' && child.name === parent.name
  );
}

/** `read` always; otherwise the node must list the action. A refusal is `desktop_refused`. */
export function checkNodeAction(node: AccessibilityNode, action: string): Checked<string> {
  if (action === 'read' || node.actions.includes(action)) return { ok: true, value: action };
  const listed =
    node.actions.length === 0 ? 'none besides `read`' : node.actions.map((a) => `\`${a}\``).join(', ');
  return {
    ok: false,
    message: `Node ${node.ref} (${node.role}) cannot \`${action}\`; its actions: ${listed}. Read the tree again if the page changed.`,
  };
}
