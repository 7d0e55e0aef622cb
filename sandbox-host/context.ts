import type { z } from 'zod';
import { requireExisting } from '../domain/sandboxes/decide.ts';
import { SandboxError } from '../domain/sandboxes/errors.ts';
import { parseSandboxBody } from '../domain/sandboxes/parse.ts';
import type { Sandbox } from '../domain/sandboxes/sandbox.ts';
import type { Logger } from '../platform/logger.ts';
import type { Desktop } from '../sandbox-runtime/desktop/index.ts';
import type { SandboxRuntime } from '../sandbox-runtime/runtime.ts';
import type { RunStore } from '../stores/runs.ts';
import type { SandboxStore } from '../stores/sandboxes.ts';
import type { TemplateStore } from '../stores/templates.ts';
import type { SandboxCommands } from './commands.ts';
import type { Runner } from './runner.ts';
import type { TemplateCommands } from './templates.ts';

/** What the host's routes share, made once by buildSandboxHost. */
export interface HostContext {
  hostId: string;
  store: SandboxStore;
  runs: RunStore;
  commands: SandboxCommands;
  runtime: SandboxRuntime;
  desktop: Desktop | undefined;
  runner: Runner;
  /** The templates this host makes and keeps (issue 48), and their read model. */
  templates: TemplateCommands;
  templateStore: TemplateStore;
  logger: Logger;
}

/**
 * The caller's body or query, parsed again with the schema the API parsed it with (the API
 * forwards what the caller sent): the same words for a refusal, and never a second reading.
 */
export function fromCaller<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = parseSandboxBody(schema, input);
  if (result.ok) return result.value;
  throw new SandboxError('invalid_request', { param: result.param, message: result.message });
}

/** A sandbox this host holds, by id, from the read model; not_found when deleted or unknown. */
export async function heldSandbox(ctx: HostContext, sandboxId: string): Promise<Sandbox> {
  const sandbox = requireExisting((await ctx.store.byId(sandboxId))?.sandbox);
  ctx.commands.mustHold(sandbox);
  return sandbox;
}
