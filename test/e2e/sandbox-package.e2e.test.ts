import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installPacked, runProgram } from '../harness/programs.ts';
import { givenSandboxApi, prepareTimeoutMs, type SandboxApi } from '../int/sandboxes/given.ts';

// `@orrery/sandbox` as a user gets it (issue 14): `npm pack` (which builds it), installed into an
// empty project outside the repository with the optional peers a user of every entry point adds,
// a script there that imports every entry point and drives a sandbox of the real platform, and the
// packed type declarations checked by TypeScript from that project.

const repo = join(import.meta.dirname, '../..');
const consumer = mkdtempSync(join(tmpdir(), 'orrery-package-user-'));
let api: SandboxApi;
let baseUrl: string;

beforeAll(async () => {
  const published = await installPacked(join(repo, 'packages/sandbox'), consumer, [
    'ai@7',
    'zod@4',
    'react@19',
    '@anthropic-ai/sdk@1',
    'openai@7',
  ]);
  // Only the build, its license and readme are published: no sources, tests or examples.
  expect(published.every((path) => /^(dist\/|LICENSE$|README\.md$|package\.json$)/.test(path))).toBe(true);
  for (const file of ['drive.mjs', 'consumer.ts']) {
    copyFileSync(join(import.meta.dirname, 'sandbox-package', file), join(consumer, file));
  }
  api = await givenSandboxApi();
  baseUrl = api.baseUrl;
}, prepareTimeoutMs);

afterAll(async () => {
  await api?.cleanup();
  rmSync(consumer, { recursive: true, force: true });
});

describe('the packed package in a fresh project', () => {
  it('imports every entry point and drives a sandbox', async () => {
    const output = await runProgram('node', ['drive.mjs'], consumer, {
      ORRERY_API_KEY: api.key,
      ORRERY_BASE_URL: baseUrl,
    });
    expect(JSON.parse(output)).toEqual({
      entryPoints: Array(9).fill('function'),
      computerTool: { type: 'computer' },
      toolset: 'computer_toolset_20260801',
      aiTools: ['screenshot', 'click', 'type', 'key', 'scroll', 'move', 'drag'],
      created: true,
      stdout: 'packed\n',
      refusal: { code: 'insufficient_ability', status: 403 },
      screenUrl: true,
      destroyed: 'deleted',
    });
  }, 60_000);

  it('type-checks a user module against the packed declarations', async () => {
    const tsconfig = {
      // As `tsc --init` writes it: libraries' own declarations are theirs to check (ai's need
      // @types/json-schema, which it does not install); ours must resolve for consumer.ts to pass.
      compilerOptions: {
        module: 'nodenext',
        target: 'es2023',
        lib: ['es2023', 'dom'],
        strict: true,
        skipLibCheck: true,
        noEmit: true,
      },
      files: ['consumer.ts'],
    };
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify(tsconfig));
    await runProgram(join(repo, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], consumer);
  }, 60_000);
});
