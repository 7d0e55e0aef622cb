import type { AXNode, AXProperty } from './ax-nodes.ts';

// Reading AT-SPI nodes, the accessibility of the desktop's own apps (the terminal, the text
// editor, the file manager: GTK 3), into the same tree as the browser's (accessibility.ts): each
// node becomes the CDP `AXNode` the browser's tree is built from, with an ARIA role, the states
// the browser's nodes have, and the actions this node can do, so `buildTree` lifts layout,
// drops hidden nodes and cuts the depth for both alike. What the app says is read inside the
// sandbox by sandbox-runtime/desktop/atspi.py.

/** A node as atspi.py reads it: AT-SPI's own role and state names. */
export interface AtspiNode {
  /** The number ending the object's D-Bus path (`…/accessible/12`), 0 for the app; null otherwise. */
  id: number | null;
  role: string;
  name: string;
  description: string;
  states: string[];
  interfaces: string[];
  /** The names of its AT-SPI actions (`click`, `activate`, `expand or contract`…). */
  actions: string[];
  /** A text field's or a terminal's contents (a terminal's last 100,000 characters). */
  text?: string;
  value?: { current: number; minimum: number; maximum: number; step: number };
  children: AtspiNode[];
  /** Children left unread: the reader stops at 5,000 nodes. */
  more?: true;
}

/**
 * A native node's ref is `e` and 10^14 + pid × 10^7 + its object id: fifteen digits, the same
 * pattern as the browser's refs (DOM backend ids, well below 10^14), naming the app's process and
 * the object in it with nothing stored between calls. A node whose id does not fit gets `e0`,
 * which no action finds.
 */
const nativeBase = 10 ** 14;
const idLimit = 10 ** 7;
const pidLimit = 10 ** 7;

export function nativeRefNumber(pid: number, id: number | null): number {
  if (id === null || !Number.isInteger(id) || id < 0 || id >= idLimit) return 0;
  if (!Number.isInteger(pid) || pid <= 0 || pid >= pidLimit) return 0;
  return nativeBase + pid * idLimit + id;
}

/** The app's process and the object's id a ref's number names, or undefined: a browser ref. */
export function parseNativeRef(refNumber: number): { pid: number; id: number } | undefined {
  if (refNumber < nativeBase) return undefined;
  const rest = refNumber - nativeBase;
  return { pid: Math.floor(rest / idLimit), id: rest % idLimit };
}

/** AT-SPI role → the ARIA role the browser's tree says; layout roles become `generic` (lifted). */
const roleTable: Record<string, string> = {
  application: 'application',
  frame: 'window',
  window: 'window',
  dialog: 'dialog',
  'file chooser': 'dialog',
  alert: 'alertdialog',
  'push button': 'button',
  'toggle button': 'button',
  'check box': 'checkbox',
  'radio button': 'radio',
  'menu bar': 'menubar',
  // GTK's `menu` is the item that opens a submenu; the submenu's items are its children.
  menu: 'menuitem',
  'popup menu': 'menu',
  'menu item': 'menuitem',
  'check menu item': 'menuitemcheckbox',
  'radio menu item': 'menuitemradio',
  'page tab list': 'tablist',
  'page tab': 'tab',
  text: 'textbox',
  entry: 'textbox',
  'password text': 'textbox',
  terminal: 'terminal',
  label: 'StaticText',
  caption: 'StaticText',
  static: 'StaticText',
  'tool bar': 'toolbar',
  'status bar': 'status',
  'info bar': 'status',
  notification: 'status',
  'tool tip': 'tooltip',
  'combo box': 'combobox',
  'spin button': 'spinbutton',
  slider: 'slider',
  'scroll bar': 'scrollbar',
  'progress bar': 'progressbar',
  'level bar': 'meter',
  list: 'list',
  'list box': 'listbox',
  'list item': 'listitem',
  table: 'table',
  'tree table': 'treegrid',
  tree: 'tree',
  'tree item': 'treeitem',
  'table row': 'row',
  'table cell': 'gridcell',
  'table column header': 'columnheader',
  'column header': 'columnheader',
  'table row header': 'rowheader',
  'row header': 'rowheader',
  icon: 'img',
  image: 'img',
  link: 'link',
  heading: 'heading',
  paragraph: 'paragraph',
  'document frame': 'document',
  'document text': 'document',
  'document web': 'document',
  separator: 'separator',
  grouping: 'group',
  form: 'form',
  'directory pane': 'region',
};
const layoutRoles = new Set([
  ...['filler', 'panel', 'scroll pane', 'viewport', 'layered pane', 'split pane', 'glass pane'],
  ...['root pane', 'internal frame', 'option pane', 'unknown', 'redundant object', 'section'],
  ...['canvas', 'drawing area', 'header', 'footer', 'tear off menu item', 'editbar'],
]);

export function roleOf(node: Pick<AtspiNode, 'role'>): string {
  if (layoutRoles.has(node.role)) return 'generic';
  return roleTable[node.role] ?? node.role.replaceAll(' ', '');
}

/** AT-SPI action names that press a node, in the order tried. */
const pressNames = ['click', 'press', 'activate', 'toggle', 'jump', 'open'];
/** What opens or closes a node that expands: a tree row's own action, else a press. */
const expandNames = ['expand or contract', ...pressNames];
const textRoles = new Set(['textbox', 'terminal']);
const steppedRoles = new Set(['slider', 'spinbutton']);

function has(node: AtspiNode, state: string): boolean {
  return node.states.includes(state);
}

function disabled(node: AtspiNode): boolean {
  const interactive = has(node, 'focusable') || node.actions.length > 0;
  return interactive && !has(node, 'enabled') && !has(node, 'sensitive');
}

/** Hidden: not on the screen (a closed menu's items, a window's inactive tab). The app never is. */
function hidden(node: AtspiNode): boolean {
  return node.role !== 'application' && !has(node, 'showing');
}

/** The actions `POST …/accessibility` can do on the node (the browser's vocabulary). */
export function nativeActions(node: AtspiNode): string[] {
  if (disabled(node)) return [];
  const role = roleOf(node);
  const expandable = has(node, 'expandable') && node.actions.some((name) => expandNames.includes(name));
  const actions: string[] = [];
  if (!textRoles.has(role) && node.actions.some((name) => pressNames.includes(name))) actions.push('press');
  if (has(node, 'focusable') && node.interfaces.includes('Component')) actions.push('focus');
  if (node.interfaces.includes('EditableText') && has(node, 'editable') && !has(node, 'read-only')) {
    actions.push('set-text');
  }
  if (expandable) actions.push(has(node, 'expanded') ? 'collapse' : 'expand');
  if (node.value !== undefined && steppedRoles.has(role)) actions.push('increment', 'decrement');
  return actions;
}

/** How an action is done through AT-SPI (atspi.py's operations), or undefined if it cannot be. */
export type AtspiOperation =
  | { op: 'action'; arg: string }
  | { op: 'focus' }
  | { op: 'set-text'; arg: string }
  | { op: 'set-value'; arg: string };

export function operationFor(node: AtspiNode, action: string, text: string): AtspiOperation | undefined {
  const named = (names: readonly string[]) => names.find((name) => node.actions.includes(name));
  switch (action) {
    case 'press': {
      const name = named(pressNames);
      return name === undefined ? undefined : { op: 'action', arg: name };
    }
    case 'expand':
    case 'collapse': {
      const name = named(expandNames);
      return name === undefined ? undefined : { op: 'action', arg: name };
    }
    case 'focus':
      return { op: 'focus' };
    case 'set-text':
      return { op: 'set-text', arg: text };
    case 'increment':
    case 'decrement': {
      if (node.value === undefined) return undefined;
      const { current, minimum, maximum, step } = node.value;
      const by = step > 0 ? step : 1;
      const next = action === 'increment' ? Math.min(maximum, current + by) : Math.max(minimum, current - by);
      return { op: 'set-value', arg: String(next) };
    }
    default:
      return undefined;
  }
}

const bool = (name: string, value: unknown): AXProperty => ({ name, value: { type: 'boolean', value } });
const token = (name: string, value: string): AXProperty => ({ name, value: { type: 'token', value } });
const tristate = (name: string, value: string): AXProperty => ({ name, value: { type: 'tristate', value } });

/** AT-SPI states → the CDP properties ax-nodes.ts reads states from. */
function propertiesOf(node: AtspiNode): AXProperty[] {
  const role = roleOf(node);
  const properties: AXProperty[] = [];
  if (has(node, 'focusable')) properties.push(bool('focusable', true));
  if (has(node, 'focused')) properties.push(bool('focused', true));
  if (disabled(node)) properties.push(bool('disabled', true));
  if (has(node, 'editable')) properties.push(token('editable', 'plaintext'));
  if (has(node, 'read-only')) properties.push(bool('readonly', true));
  if (has(node, 'required')) properties.push(bool('required', true));
  if (has(node, 'multi-line') && textRoles.has(role)) properties.push(bool('multiline', true));
  if (has(node, 'invalid-entry')) properties.push(token('invalid', 'true'));
  if (has(node, 'busy')) properties.push(bool('busy', true));
  if (has(node, 'modal')) properties.push(bool('modal', true));
  if (has(node, 'selected')) properties.push(bool('selected', true));
  const mixed = has(node, 'indeterminate');
  const on = has(node, 'checked') || has(node, 'pressed');
  if (node.role === 'toggle button') {
    if (on || mixed) properties.push(tristate('pressed', mixed ? 'mixed' : 'true'));
  } else if (has(node, 'checkable') || has(node, 'checked') || mixed) {
    if (on || mixed) properties.push(tristate('checked', mixed ? 'mixed' : 'true'));
  }
  if (has(node, 'expandable')) properties.push(bool('expanded', has(node, 'expanded')));
  if (hidden(node)) properties.push(bool('hidden', true));
  properties.push({ name: 'actions', value: { type: 'nativeActions', value: nativeActions(node) } });
  return properties;
}

function shownValue(node: AtspiNode): string {
  // A terminal's text is its whole screen: the rows below the prompt are blank.
  if (node.text !== undefined) return node.role === 'terminal' ? node.text.trimEnd() : node.text;
  if (node.value !== undefined && steppedRoles.has(roleOf(node))) return String(node.value.current);
  return '';
}

/** One app's tree as the CDP nodes `buildTree` takes: the app is the root, its windows below. */
export function toAXNodes(pid: number, root: AtspiNode): AXNode[] {
  const out: AXNode[] = [];
  let next = 0;
  const add = (node: AtspiNode): string => {
    const nodeId = String(next++);
    const ax: AXNode = {
      nodeId,
      ignored: false,
      role: { type: 'role', value: roleOf(node) },
      name: { type: 'computedString', value: node.name },
      properties: propertiesOf(node),
      backendDOMNodeId: nativeRefNumber(pid, node.id),
    };
    const value = shownValue(node);
    if (value !== '') ax.value = { type: 'string', value };
    if (node.description !== '' && node.description !== node.name) {
      ax.description = { type: 'computedString', value: node.description };
    }
    out.push(ax);
    ax.childIds = node.children.map(add);
    return nodeId;
  };
  add(root);
  return out;
}
