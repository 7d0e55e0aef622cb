import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtConfinement, confinementRecipe, confinementVersion } from '../../../sandbox-runtime/confine.ts';
import { limitControllers } from '../../../sandbox-runtime/limits.ts';
import { sandboxRecord } from '../../../sandbox-runtime/state.ts';

describe('the confinement, as the runtime finds it', () => {
  it('is resolved for Docker’s default capabilities, never CAP_SYS_ADMIN', () => {
    expect(confinementRecipe.capabilities).toHaveLength(14);
    expect(confinementRecipe.capabilities).not.toContain('CAP_SYS_ADMIN');
    expect(confinementVersion()).toMatch(/^confinement-[0-9a-f]{12}$/);
  });

  it('is refused, naming the command that builds it, until a build finished; then its folder', () => {
    const cache = mkdtempSync(join(tmpdir(), 'orrery-confinement-'));
    try {
      expect(() => builtConfinement(cache)).toThrow(/`npm run stack -- start` builds it/);
      const target = join(cache, confinementVersion());
      mkdirSync(target);
      expect(() => builtConfinement(cache)).toThrow(/is not built/);
      writeFileSync(join(target, '.orrery-confinement.json'), '{}');
      expect(builtConfinement(cache)).toBe(target);
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
    expect(sandboxRecord.parse(before).confinement).toBeNull();
  });
});
