import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { limitControllers } from '../../../sandbox-runtime/limits.ts';
import { builtSeccomp, seccompRecipe, seccompVersion } from '../../../sandbox-runtime/seccomp.ts';
import { sandboxRecord } from '../../../sandbox-runtime/state.ts';

describe('the seccomp filter, as the runtime finds it', () => {
  it('is resolved for Docker’s default capabilities, never CAP_SYS_ADMIN', () => {
    expect(seccompRecipe.capabilities).toHaveLength(14);
    expect(seccompRecipe.capabilities).not.toContain('CAP_SYS_ADMIN');
    expect(seccompVersion()).toMatch(/^seccomp-[0-9a-f]{12}$/);
  });

  it('is refused, naming the command that builds it, until a build finished; then its folder', () => {
    const cache = mkdtempSync(join(tmpdir(), 'orrery-seccomp-'));
    try {
      expect(() => builtSeccomp(cache)).toThrow(/`npm run stack -- start` builds it/);
      const target = join(cache, seccompVersion());
      mkdirSync(target);
      expect(() => builtSeccomp(cache)).toThrow(/is not built/);
      writeFileSync(join(target, '.orrery-seccomp.json'), '{}');
      expect(builtSeccomp(cache)).toBe(target);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it('is absent from the record of a sandbox made before it existed', () => {
    const before = {
      id: 'sb',
      size: 'small',
      createdAt: '2026-12-01T00:00:00.000Z',
      forkedFrom: null,
      filesystem: 'overlay',
      rootfs: '/r',
      cgroups: { v1: {}, v2Controllers: [] },
      limits: Object.fromEntries(limitControllers.map((name) => [name, { applied: false, reason: 'test' }])),
      freezer: 'cgroup',
      init: null,
      desired: 'running',
      destroying: false,
    };
    expect(sandboxRecord.parse(before).seccomp).toBeNull();
  });
});
