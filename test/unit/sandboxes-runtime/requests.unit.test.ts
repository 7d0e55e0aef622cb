import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SandboxError } from '../../../domain/sandboxes/errors.ts';
import { checkExec } from '../../../sandbox-runtime/exec.ts';
import { fileLimitBytes, sandboxPath } from '../../../sandbox-runtime/files.ts';
import { builtRootfs, rootfsRecipe, rootfsVersion } from '../../../sandbox-runtime/rootfs.ts';

function refusedParam(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof SandboxError && error.code === 'invalid_request') return error.param;
    throw error;
  }
  throw new Error('not refused');
}

describe('sandbox paths', () => {
  it.each([
    ['/root/file', '/root/file'],
    ['//root///file/', '/root/file'],
    ['/root/./a/../b', '/root/b'],
    ['/root/..', '/'],
    ['/', '/'],
  ])('%s is %s', (path, normalized) => {
    expect(sandboxPath(path)).toBe(normalized);
  });

  it.each(['/..', '/../etc/passwd', '/a/../../b', 'relative', '', '/nul\0byte', `/${'a'.repeat(4096)}`])(
    'refuses %j',
    (path) => {
      expect(refusedParam(() => sandboxPath(path))).toBe('path');
    },
  );

  it('reads 64 MB as MiB', () => {
    expect(fileLimitBytes).toBe(67_108_864);
  });
});

describe('exec options', () => {
  it('defaults to /root, no extra variables, 60 s', () => {
    expect(checkExec('true', {})).toEqual({ cwd: '/root', env: {}, timeoutSeconds: 60 });
  });

  it.each([
    [{ timeoutSeconds: 0 }, 'timeout_seconds'],
    [{ timeoutSeconds: 601 }, 'timeout_seconds'],
    [{ timeoutSeconds: 1.5 }, 'timeout_seconds'],
    [{ cwd: 'relative' }, 'cwd'],
    [{ env: { '1ABC': 'x' } }, 'env'],
    [{ env: { 'A-B': 'x' } }, 'env'],
  ])('refuses %j', (options, param) => {
    expect(refusedParam(() => checkExec('true', options))).toBe(param);
  });

  it('accepts 600 s and refuses an empty or over-long command', () => {
    expect(checkExec('true', { timeoutSeconds: 600 }).timeoutSeconds).toBe(600);
    expect(refusedParam(() => checkExec('', {}))).toBe('command');
    expect(refusedParam(() => checkExec('x'.repeat(65_537), {}))).toBe('command');
  });
});

describe('base filesystem version', () => {
  it('changes with the recipe', () => {
    expect(rootfsVersion()).toMatch(/^bookworm-minbase-[0-9a-f]{12}$/);
    expect(rootfsVersion({ ...rootfsRecipe, packages: [...rootfsRecipe.packages, 'xvfb'] })).not.toBe(
      rootfsVersion(),
    );
  });
});

describe('the base filesystem, as the runtime finds it', () => {
  it('is refused, naming the command that builds it, until a build finished; then its path', () => {
    const cache = mkdtempSync(join(tmpdir(), 'orrery-rootfs-'));
    try {
      expect(() => builtRootfs(cache)).toThrow(/`npm run stack -- start` builds it/);
      const target = join(cache, rootfsVersion());
      mkdirSync(target);
      expect(() => builtRootfs(cache)).toThrow(/is not built/);
      writeFileSync(join(target, '.orrery-rootfs.json'), '{}');
      expect(builtRootfs(cache)).toBe(target);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});
