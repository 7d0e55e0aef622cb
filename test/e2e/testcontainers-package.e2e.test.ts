import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, ensureEngine, testcontainersEnvironment } from '../../infra/containers/engine.ts';
import { ensureImages } from '../../infra/containers/images.ts';
import { buildPartImages } from '../../infra/containers/parts.ts';
import { config } from '../../platform/config.ts';
import { installPacked, runProgram } from '../harness/programs.ts';

// `@orrery/testcontainers` as a user gets it (issue 17, item 3): `npm pack` (which builds it),
// installed into an empty project outside the repository, and a user's test there that starts
// Orrery and its stack in containers, sends a trace and reads it back, then stops everything.

const repo = join(import.meta.dirname, '../..');
const consumer = mkdtempSync(join(tmpdir(), 'orrery-testcontainers-user-'));
const log = (line: string) => process.stderr.write(`[containers] ${line}\n`);
let engine: Engine;

beforeAll(async () => {
  engine = await ensureEngine(config(), log);
  await ensureImages(engine, log);
  await buildPartImages(engine, config(), log);
  const published = await installPacked(join(repo, 'packages/testcontainers'), consumer);
  // Only the build, its license and readme are published.
  expect(published.every((path) => /^(dist\/|LICENSE$|README\.md$|package\.json$)/.test(path))).toBe(true);
  copyFileSync(
    join(import.meta.dirname, 'testcontainers-package', 'user-test.mjs'),
    join(consumer, 'user-test.mjs'),
  );
}, 600_000);

afterAll(() => {
  rmSync(consumer, { recursive: true, force: true });
});

describe('the packed @orrery/testcontainers in a fresh project', () => {
  it("runs a user's test: Orrery started, a trace sent and read back, everything stopped", async () => {
    const started = Date.now();
    // What the module's README tells a podman user to set.
    const output = await runProgram('node', ['user-test.mjs'], consumer, testcontainersEnvironment(engine));
    log(`the user's test took ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(JSON.parse(output)).toEqual({
      status: 200,
      spans: [{ name: 'handle request', service: 'user-app' }],
    });
    const left = spawnSync(
      engine.cli,
      ['ps', '--all', '--quiet', '--filter', 'label=org.orrery.testcontainers.run'],
      { encoding: 'utf8' },
    ).stdout.trim();
    expect(left).toBe('');
  }, 300_000);
});
