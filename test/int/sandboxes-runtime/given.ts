import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { SandboxError } from '../../../domain/sandboxes/errors.ts';
import { type RuntimeOptions, SandboxRuntime } from '../../../sandbox-runtime/runtime.ts';
import { layoutOf } from '../../../sandbox-runtime/sandbox-fs.ts';
import { readRecord, recordedIds } from '../../../sandbox-runtime/state.ts';

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

/**
 * The host's path to a sandbox's `path` (relative to its `/`): through its init's root, since
 * its layer is mounted only in its own mount namespace. Works while frozen.
 */
export function pathFromHost(dir: string, id: string, path: string): string {
  const init = readRecord(layoutOf(dir, id))?.init;
  if (!init) throw new Error(`${id} has no init`);
  return join('/proc', String(init.pid), 'root', path);
}

/** What the sandbox holds at `path` (relative to its `/`), read on the host (works while frozen). */
export function upperFile(dir: string, id: string, path: string): string | undefined {
  if (!readRecord(layoutOf(dir, id))?.init) return undefined;
  const file = pathFromHost(dir, id, path);
  try {
    return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  } catch {
    return undefined; // the init ended meanwhile
  }
}

export async function refusal(promise: Promise<unknown>): Promise<SandboxError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(SandboxError);
  return error as SandboxError;
}
