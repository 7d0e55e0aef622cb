import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { SandboxError } from '../../../domain/sandboxes/errors.ts';
import { type RuntimeOptions, SandboxRuntime } from '../../../sandbox-runtime/runtime.ts';
import { recordedIds } from '../../../sandbox-runtime/state.ts';

// A runtime of real sandboxes on this host, with its own state folder, for one test file.

/** Building the base filesystem on a fresh machine takes about a minute (39 s here). */
export const prepareTimeoutMs = 600_000;

export function givenRuntime(options: Partial<RuntimeOptions> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'orrery-sandboxes-'));
  const runtime = new SandboxRuntime({ dir, ...options });
  return {
    runtime,
    dir,
    /** Destroys what the tests left (half-destroyed ones too) and removes the state folder. */
    async cleanup() {
      for (const id of recordedIds(dir)) await runtime.destroy(id);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function sandboxId(label: string): string {
  return `${label}-${randomBytes(3).toString('hex')}`;
}

export const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** What a sandbox's writable layer holds at `path`, read on the host (works while frozen). */
export function upperFile(dir: string, id: string, path: string): string | undefined {
  const file = join(dir, id, 'upper', path);
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

export async function refusal(promise: Promise<unknown>): Promise<SandboxError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(SandboxError);
  return error as SandboxError;
}
