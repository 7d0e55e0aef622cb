import { describe, expect, it } from 'vitest';
import {
  type AccessibilityNode,
  buildTree,
  checkNodeAction,
  parseRef,
} from '../../../domain/sandboxes/accessibility.ts';
import type { AXNode } from '../../../domain/sandboxes/ax-nodes.ts';

// A sign-up page as Chrome's Accessibility.getFullAXTree returns it (trimmed to the fields we
// read): layout wrappers Chrome ignores, a heading, a text field with its inner editor, a
// button with its label, a checked checkbox, a disabled button, and an element not rendered.
const prop = (name: string, type: string, value: unknown) => ({ name, value: { type, value } });
const str = (value: string) => ({ type: 'computedString', value });
const role = (value: string) => ({ type: 'role', value });
const uninteresting = [prop('uninteresting', 'boolean', true)];
const notRendered = [prop('notRendered', 'boolean', true)];

const page: AXNode[] = [
  {
    nodeId: '1',
    ignored: false,
    role: role('RootWebArea'),
    name: str('Sign up'),
    properties: [prop('focusable', 'booleanOrUndefined', true), prop('focused', 'booleanOrUndefined', true)],
    childIds: ['2'],
    backendDOMNodeId: 1,
  },
  {
    nodeId: '2',
    ignored: true,
    ignoredReasons: uninteresting,
    role: role('none'),
    childIds: ['3'],
    backendDOMNodeId: 2,
  },
  {
    nodeId: '3',
    ignored: true,
    ignoredReasons: uninteresting,
    role: role('generic'),
    childIds: ['4', '7', '9', '12', '14', '16'],
    backendDOMNodeId: 3,
  },
  {
    nodeId: '4',
    ignored: false,
    role: role('heading'),
    name: str('Sign up'),
    properties: [prop('level', 'integer', 1)],
    childIds: ['5'],
    backendDOMNodeId: 7,
  },
  {
    nodeId: '5',
    ignored: false,
    role: role('StaticText'),
    name: str('Sign up'),
    childIds: ['6'],
    backendDOMNodeId: 8,
  },
  {
    nodeId: '6',
    ignored: false,
    role: role('InlineTextBox'),
    name: str('Sign up'),
    childIds: [],
    backendDOMNodeId: 8,
  },
  {
    nodeId: '7',
    ignored: false,
    role: role('textbox'),
    name: str('Email'),
    description: str('We never share it'),
    value: { type: 'string', value: 'ada@example.com' },
    properties: [
      prop('focusable', 'booleanOrUndefined', true),
      prop('editable', 'token', 'plaintext'),
      prop('settable', 'booleanOrUndefined', true),
      prop('required', 'boolean', true),
    ],
    childIds: ['8'],
    backendDOMNodeId: 10,
  },
  { nodeId: '8', ignored: false, role: role('generic'), childIds: [], backendDOMNodeId: 11 },
  {
    nodeId: '9',
    ignored: false,
    role: role('button'),
    name: str('Create account'),
    properties: [prop('focusable', 'booleanOrUndefined', true)],
    childIds: ['10'],
    backendDOMNodeId: 13,
  },
  {
    nodeId: '10',
    ignored: false,
    role: role('StaticText'),
    name: str('Create account'),
    childIds: [],
    backendDOMNodeId: 14,
  },
  {
    nodeId: '12',
    ignored: true,
    ignoredReasons: notRendered,
    role: role('generic'),
    childIds: ['13'],
    backendDOMNodeId: 16,
  },
  {
    nodeId: '13',
    ignored: true,
    ignoredReasons: notRendered,
    role: role('StaticText'),
    name: str('Secret'),
    backendDOMNodeId: 17,
  },
  {
    nodeId: '14',
    ignored: false,
    role: role('checkbox'),
    name: str('Remember me'),
    properties: [prop('focusable', 'booleanOrUndefined', true), prop('checked', 'tristate', 'true')],
    childIds: [],
    backendDOMNodeId: 19,
  },
  {
    nodeId: '16',
    ignored: false,
    role: role('button'),
    name: str('Delete'),
    properties: [prop('disabled', 'boolean', true)],
    childIds: [],
    backendDOMNodeId: 21,
  },
];

const leaf = (node: Omit<AccessibilityNode, 'children'>): AccessibilityNode => ({ ...node, children: [] });

const shown: AccessibilityNode[] = [
  leaf({ ref: 'e7', role: 'heading', name: 'Sign up', actions: [] }),
  leaf({
    ref: 'e10',
    role: 'textbox',
    name: 'Email',
    value: 'ada@example.com',
    description: 'We never share it',
    states: ['focusable', 'editable', 'required'],
    actions: ['focus', 'set-text'],
  }),
  leaf({
    ref: 'e13',
    role: 'button',
    name: 'Create account',
    states: ['focusable'],
    actions: ['press', 'focus'],
  }),
  leaf({
    ref: 'e19',
    role: 'checkbox',
    name: 'Remember me',
    states: ['focusable', 'checked'],
    actions: ['press', 'focus'],
  }),
  leaf({ ref: 'e21', role: 'button', name: 'Delete', states: ['disabled'], actions: [] }),
];

const documentNode = {
  ref: 'e1',
  role: 'document',
  name: 'Sign up',
  states: ['focusable', 'focused'],
  actions: ['focus'],
};

describe('buildTree', () => {
  it('shows the page: wrappers lifted, labels and hidden nodes left out', () => {
    expect(buildTree(page, { depth: 200, includeHidden: false })).toEqual({
      ...documentNode,
      children: shown,
    });
  });

  it('keeps hidden nodes with include_hidden, marked hidden', () => {
    const tree = buildTree(page, { depth: 200, includeHidden: true });
    expect(tree?.children.map((c) => c.name)).toEqual([
      'Sign up',
      'Email',
      'Create account',
      'Secret',
      'Remember me',
      'Delete',
    ]);
    expect(tree?.children[3]).toEqual(
      leaf({ ref: 'e17', role: 'text', name: 'Secret', states: ['hidden'], actions: [] }),
    );
  });

  it('cuts at depth 1 and says so', () => {
    expect(buildTree(page, { depth: 1, includeHidden: false })).toEqual({
      ...documentNode,
      children: [],
      truncated: true,
    });
  });

  it('at depth 2, leaves with nothing below are not marked truncated', () => {
    const tree = buildTree(page, { depth: 2, includeHidden: false });
    expect(tree?.children).toEqual(shown);
  });

  it('keeps a text run that differs from its parent name', () => {
    const nodes = page.map((n) => (n.nodeId === '5' ? { ...n, name: str('Sign up today') } : n));
    const heading = buildTree(nodes, { depth: 200, includeHidden: false })?.children[0];
    expect(heading?.children).toEqual([
      leaf({ ref: 'e8', role: 'text', name: 'Sign up today', actions: [] }),
    ]);
  });

  it('has no tree for no nodes', () => {
    expect(buildTree([], { depth: 200, includeHidden: false })).toBeUndefined();
  });
});

describe('node actions', () => {
  const [, textbox, button, , disabled] = shown as [
    AccessibilityNode,
    AccessibilityNode,
    AccessibilityNode,
    AccessibilityNode,
    AccessibilityNode,
  ];
  it.each([
    ['read on any node', disabled, 'read', true],
    ['press on a button', button, 'press', true],
    ['set-text on a text field', textbox, 'set-text', true],
    ['press on a text field', textbox, 'press', false],
    ['press on a disabled button', disabled, 'press', false],
    ['an action no node lists', button, 'expand', false],
  ] as const)('%s', (_name, node, action, ok) => {
    expect(checkNodeAction(node, action).ok).toBe(ok);
  });

  it('says what the node can do instead', () => {
    expect(checkNodeAction(textbox, 'press')).toEqual({
      ok: false,
      message:
        'Node e10 (textbox) cannot `press`; its actions: `focus`, `set-text`. Read the tree again if the page changed.',
    });
  });

  it.each([
    ['e12', 12],
    ['e0', 0],
    ['12', undefined],
    ['e', undefined],
    ['ex', undefined],
  ])('ref %s', (ref, id) => {
    const parsed = parseRef(ref);
    expect(parsed.ok ? parsed.value : undefined).toBe(id);
  });
});
