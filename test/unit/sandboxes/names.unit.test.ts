import { describe, expect, it } from 'vitest';
import {
  checkSandboxName,
  defaultName,
  identifierKind,
  newSandboxId,
  pickDefaultName,
} from '../../../domain/sandboxes/names.ts';

/** Returns the given byte sequences in turn. */
function bytesFrom(...sequences: number[][]) {
  let next = 0;
  return (count: number) => {
    const bytes = Uint8Array.from(sequences[next++ % sequences.length] ?? []);
    expect(bytes.length).toBe(count);
    return bytes;
  };
}

describe('default names', () => {
  it('is sb- and six hex digits', () => {
    expect(defaultName(bytesFrom([0x0a, 0xbc, 0xff]))).toBe('sb-0abcff');
  });

  it('tries again when a name is taken', async () => {
    const taken = new Set(['sb-000000', 'sb-000001']);
    const name = await pickDefaultName(bytesFrom([0, 0, 0], [0, 0, 1], [0, 0, 2]), (n) => taken.has(n));
    expect(name).toBe('sb-000002');
  });

  it('accepts an asynchronous predicate', async () => {
    expect(await pickDefaultName(bytesFrom([1, 2, 3]), async () => false)).toBe('sb-010203');
  });

  it('gives up after the attempts, as a bug rather than a refusal', async () => {
    await expect(pickDefaultName(bytesFrom([0, 0, 0]), () => true, 3)).rejects.toThrow(/after 3 attempts/);
  });

  it('default names pass the name rule', () => {
    expect(checkSandboxName(defaultName(bytesFrom([0xff, 0xff, 0xff]))).ok).toBe(true);
  });
});

describe('the name rule', () => {
  it.each([
    ['a', true],
    ['a'.repeat(63), true],
    ['a'.repeat(64), false],
    ['', false],
    ['web-1', true],
    ['1web', true],
    ['-web', false],
    ['web-', false],
    ['Web', false],
    ['web_1', false],
    ['web.1', false],
  ])('%s: %s', (name, ok) => {
    expect(checkSandboxName(name).ok).toBe(ok);
  });
});

describe('ids', () => {
  it('are sbx_ and 24 hex digits, never a valid name', () => {
    const id = newSandboxId(bytesFrom(Array.from({ length: 12 }, (_, i) => i * 17)));
    expect(id).toBe('sbx_00112233445566778899aabb');
    expect(checkSandboxName(id).ok).toBe(false);
  });

  it.each([
    ['sbx_00112233445566778899aabb', 'id'],
    ['sb-0abcff', 'name'],
    ['my-box', 'name'],
  ])('%s is looked up as an %s', (text, kind) => {
    expect(identifierKind(text)).toBe(kind);
  });
});
