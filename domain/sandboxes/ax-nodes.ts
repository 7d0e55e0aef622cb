// Reading CDP `Accessibility.AXNode`s (Chrome DevTools Protocol, `Accessibility.getFullAXTree`):
// which nodes to show, their states and the actions they allow. The tree format built from them
// is described in accessibility.ts. The desktop's own apps' nodes arrive in the same shape
// (atspi-nodes.ts), with their actions listed in a property of their own.

/** The parts of CDP's `Accessibility.AXNode` we read. */
export interface AXValue {
  type: string;
  value?: unknown;
}
export interface AXProperty {
  name: string;
  value: AXValue;
}
export interface AXNode {
  nodeId: string;
  ignored: boolean;
  ignoredReasons?: AXProperty[];
  role?: AXValue;
  name?: AXValue;
  description?: AXValue;
  value?: AXValue;
  properties?: AXProperty[];
  parentId?: string;
  childIds?: string[];
  backendDOMNodeId?: number;
}

export const roleNames: Record<string, string> = {
  RootWebArea: 'document',
  WebArea: 'document',
  StaticText: 'text',
};
const droppedRoles = new Set(['InlineTextBox']);
const layoutRoles = new Set(
  'generic none presentation LayoutTable LayoutTableRow LayoutTableCell'.split(' '),
);
/** `ignoredReasons` that mean the node is not shown to a person, as opposed to mere layout. */
const hiddenReasons = new Set(
  'notRendered notVisible ariaHiddenElement ariaHiddenSubtree inertElement inertSubtree'.split(' '),
);

/** CDP property → the state it shows, if any (CDP `AXPropertyName`; tristates are strings). */
const stateOf: Record<string, (value: unknown) => string | undefined> = {
  focusable: (v) => (v === true ? 'focusable' : undefined),
  focused: (v) => (v === true ? 'focused' : undefined),
  disabled: (v) => (v === true ? 'disabled' : undefined),
  editable: (v) => (typeof v === 'string' && v !== '' ? 'editable' : undefined),
  readonly: (v) => (v === true ? 'readonly' : undefined),
  required: (v) => (v === true ? 'required' : undefined),
  multiline: (v) => (v === true ? 'multiline' : undefined),
  invalid: (v) => (v !== 'false' && v !== false ? 'invalid' : undefined),
  busy: (v) => (v === true ? 'busy' : undefined),
  modal: (v) => (v === true ? 'modal' : undefined),
  selected: (v) => (v === true ? 'selected' : undefined),
  checked: (v) => (v === 'true' ? 'checked' : v === 'mixed' ? 'mixed' : undefined),
  pressed: (v) => (v === 'true' ? 'pressed' : v === 'mixed' ? 'mixed' : undefined),
  expanded: (v) => (v === true ? 'expanded' : v === false ? 'collapsed' : undefined),
  hidden: (v) => (v === true ? 'hidden' : undefined),
};

const pressableRoles = new Set([
  ...'button link checkbox radio switch tab menuitem menuitemcheckbox menuitemradio'.split(' '),
  ...'option treeitem combobox PopUpButton DisclosureTriangle'.split(' '),
]);
const steppedRoles = new Set(['slider', 'spinbutton']);

/** Node action → whether the node (its role and states) allows it. */
const actionRules: [string, (role: string, states: ReadonlySet<string>) => boolean][] = [
  ['press', (role, s) => pressableRoles.has(role) && !s.has('disabled')],
  ['focus', (_role, s) => s.has('focusable') && !s.has('disabled')],
  ['set-text', (_role, s) => s.has('editable') && !s.has('readonly') && !s.has('disabled')],
  ['expand', (_role, s) => s.has('collapsed') && !s.has('disabled')],
  ['collapse', (_role, s) => s.has('expanded') && !s.has('disabled')],
  ['increment', (role, s) => steppedRoles.has(role) && !s.has('disabled')],
  ['decrement', (role, s) => steppedRoles.has(role) && !s.has('disabled')],
];

export function text(value: AXValue | undefined): string {
  return value?.value === undefined || value.value === null ? '' : String(value.value);
}

export function statesOf(node: AXNode): string[] {
  const states = (node.properties ?? []).flatMap((p) => stateOf[p.name]?.(p.value.value) ?? []);
  if (isHidden(node) && !states.includes('hidden')) states.push('hidden');
  return states;
}

export function isHidden(node: AXNode): boolean {
  const reasons = node.ignoredReasons ?? [];
  return reasons.some((r) => hiddenReasons.has(r.name) && r.value.value !== false) || hasHiddenProperty(node);
}

function hasHiddenProperty(node: AXNode): boolean {
  return (node.properties ?? []).some((p) => p.name === 'hidden' && p.value.value === true);
}

export type Shape = 'drop' | 'lift' | 'keep';

export function shapeOf(node: AXNode, includeHidden: boolean): Shape {
  const role = text(node.role);
  if (droppedRoles.has(role) || (isHidden(node) && !includeHidden)) return 'drop';
  if (node.backendDOMNodeId === undefined) return 'lift';
  if (node.ignored && !isHidden(node)) return 'lift';
  if (layoutRoles.has(role) && text(node.name) === '' && nodeActions(node).length === 0) return 'lift';
  return 'keep';
}

export function nodeActions(node: AXNode): string[] {
  // A native app's node (atspi-nodes.ts) lists its own: AT-SPI says what it can do.
  const listed = node.properties?.find((p) => p.name === 'actions' && p.value.type === 'nativeActions');
  if (Array.isArray(listed?.value.value)) return listed.value.value.map(String);
  const role = text(node.role);
  const states = new Set(statesOf(node));
  return actionRules.filter(([, allows]) => allows(role, states)).map(([action]) => action);
}
