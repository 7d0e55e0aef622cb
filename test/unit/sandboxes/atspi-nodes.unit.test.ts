import { describe, expect, it } from 'vitest';
import { buildTree, describeNode } from '../../../domain/sandboxes/accessibility.ts';
import {
  type AtspiNode,
  nativeActions,
  nativeRefNumber,
  operationFor,
  parseNativeRef,
  roleOf,
  toAXNodes,
} from '../../../domain/sandboxes/atspi-nodes.ts';

// A text editor's window as atspi.py reads it (trimmed): layout fillers, a menu bar whose File
// menu is closed (its items not showing), the editor's text, a disabled button, an expandable row.
const node = (over: Partial<AtspiNode> & Pick<AtspiNode, 'id' | 'role'>): AtspiNode => ({
  name: '',
  description: '',
  states: ['enabled', 'sensitive', 'showing', 'visible'],
  interfaces: ['Accessible', 'Component'],
  actions: [],
  children: [],
  ...over,
});

const editor = node({
  id: 0,
  role: 'application',
  name: 'mousepad',
  states: [],
  children: [
    node({
      id: 121,
      role: 'frame',
      name: 'Untitled 1 - Mousepad',
      children: [
        node({
          id: 1,
          role: 'filler',
          children: [
            node({
              id: 10,
              role: 'menu bar',
              children: [
                node({
                  id: 13,
                  role: 'menu',
                  name: 'File',
                  interfaces: ['Accessible', 'Action', 'Component'],
                  actions: ['click'],
                  children: [
                    node({
                      id: 34,
                      role: 'menu item',
                      name: 'New',
                      states: ['enabled', 'sensitive', 'visible'],
                      actions: ['click'],
                    }),
                  ],
                }),
              ],
            }),
            node({
              id: 149,
              role: 'text',
              states: ['editable', 'enabled', 'focusable', 'focused', 'multi-line', 'sensitive', 'showing'],
              interfaces: ['Accessible', 'Component', 'EditableText', 'Text'],
              text: 'hello',
            }),
            node({
              id: 70,
              role: 'push button',
              name: 'Back',
              states: ['focusable', 'showing', 'visible'],
              interfaces: ['Accessible', 'Action', 'Component'],
              actions: ['click'],
            }),
            node({
              id: 91,
              role: 'table cell',
              name: 'Places',
              states: ['enabled', 'expandable', 'focusable', 'sensitive', 'showing'],
              interfaces: ['Accessible', 'Action', 'Component'],
              actions: ['expand or contract', 'edit', 'activate'],
            }),
          ],
        }),
      ],
    }),
  ],
});

const pid = 2778;
const ref = (id: number) => `e${nativeRefNumber(pid, id)}`;

describe('native refs', () => {
  it('are fifteen digits past the browser’s, naming the process and the object', () => {
    expect(ref(149)).toBe('e100027780000149');
    expect(parseNativeRef(nativeRefNumber(pid, 149))).toEqual({ pid, id: 149 });
    expect(parseNativeRef(12)).toBeUndefined();
  });

  it('are e0 for an object whose id does not fit', () => {
    expect(nativeRefNumber(pid, null)).toBe(0);
    expect(nativeRefNumber(pid, 10 ** 7)).toBe(0);
  });
});

describe('an app’s tree', () => {
  const tree = buildTree(toAXNodes(pid, editor), { depth: 200, includeHidden: false });

  it('is the browser’s shape: ARIA roles, layout lifted, closed menus hidden', () => {
    expect(tree).toEqual({
      ref: ref(0),
      role: 'application',
      name: 'mousepad',
      actions: [],
      children: [
        {
          ref: ref(121),
          role: 'window',
          name: 'Untitled 1 - Mousepad',
          actions: [],
          children: [
            {
              ref: ref(10),
              role: 'menubar',
              name: '',
              actions: [],
              children: [{ ref: ref(13), role: 'menuitem', name: 'File', actions: ['press'], children: [] }],
            },
            {
              ref: ref(149),
              role: 'textbox',
              name: '',
              value: 'hello',
              states: ['focusable', 'focused', 'editable', 'multiline'],
              actions: ['focus', 'set-text'],
              children: [],
            },
            {
              ref: ref(70),
              role: 'button',
              name: 'Back',
              states: ['focusable', 'disabled'],
              actions: [],
              children: [],
            },
            {
              ref: ref(91),
              role: 'gridcell',
              name: 'Places',
              states: ['focusable', 'collapsed'],
              actions: ['press', 'focus', 'expand'],
              children: [],
            },
          ],
        },
      ],
    });
  });

  it('keeps hidden nodes when asked, saying so', () => {
    const all = buildTree(toAXNodes(pid, editor), { depth: 200, includeHidden: true });
    const file = all?.children[0]?.children[0]?.children[0];
    expect(file?.children).toEqual([
      { ref: ref(34), role: 'menuitem', name: 'New', states: ['hidden'], actions: ['press'], children: [] },
    ]);
  });

  it('cuts at the depth asked', () => {
    const cut = buildTree(toAXNodes(pid, editor), { depth: 2, includeHidden: false });
    expect(cut?.children[0]).toMatchObject({ role: 'window', truncated: true, children: [] });
  });

  it('shows a terminal’s text without the blank rows below the prompt', () => {
    const terminal = node({
      id: 49,
      role: 'terminal',
      name: 'Terminal',
      text: 'root@sb:~# ls\na\nroot@sb:~# \n\n\n',
    });
    expect(describeNode(toAXNodes(pid, terminal)[0]!)).toMatchObject({
      role: 'terminal',
      value: 'root@sb:~# ls\na\nroot@sb:~#',
    });
  });
});

describe('native actions', () => {
  it('press by the node’s own action; expand a row by its expand action', () => {
    const row = node({
      id: 1,
      role: 'table cell',
      states: ['enabled', 'expandable'],
      actions: ['activate', 'expand or contract'],
    });
    expect(operationFor(row, 'press', '')).toEqual({ op: 'action', arg: 'activate' });
    expect(operationFor(row, 'expand', '')).toEqual({ op: 'action', arg: 'expand or contract' });
    expect(operationFor(node({ id: 2, role: 'push button' }), 'press', '')).toBeUndefined();
  });

  it('move a slider by its step, within its range', () => {
    const slider = node({
      id: 3,
      role: 'slider',
      interfaces: ['Accessible', 'Value'],
      value: { current: 9.5, minimum: 0, maximum: 10, step: 1 },
    });
    expect(nativeActions(slider)).toEqual(['increment', 'decrement']);
    expect(operationFor(slider, 'increment', '')).toEqual({ op: 'set-value', arg: '10' });
    expect(operationFor(slider, 'decrement', '')).toEqual({ op: 'set-value', arg: '8.5' });
  });

  it('do not press a text field or a terminal (their action is Return)', () => {
    const entry = node({ id: 4, role: 'text', states: ['enabled', 'editable'], actions: ['activate'] });
    expect(roleOf(entry)).toBe('textbox');
    expect(nativeActions(entry)).not.toContain('press');
  });
});
