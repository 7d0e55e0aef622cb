import { z } from 'zod';
import { parseSandboxBody } from '../../domain/sandboxes/parse.ts';
import { textWithoutNul } from '../../domain/text.ts';
import type { Desktop } from '../../sandbox-runtime/desktop/index.ts';
import type { SandboxRuntime } from '../../sandbox-runtime/runtime.ts';
import type { SandboxTokenCodec } from '../auth/sandbox-tokens.ts';
import { parsedOrRefused } from '../request-validation.ts';
import type { SandboxAccess } from './access.ts';
import type { SandboxCommands } from './commands.ts';
import type { SandboxStore } from './store.ts';

/** What the sandbox routes share, made once by the plugin. */
export interface SandboxContext {
  store: SandboxStore;
  commands: SandboxCommands;
  access: SandboxAccess;
  runtime: SandboxRuntime;
  tokens: SandboxTokenCodec;
  now: () => Date;
  desktop: Desktop | undefined;
}

/** Parses a body or query with the domain's schema; a refusal is a 422 naming the field. */
export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  return parsedOrRefused(parseSandboxBody(schema, input));
}

/** Routes whose options are all optional take no body as `{}`. */
export const orEmpty = (body: unknown) => body ?? {};

export const idParams = z.object({ id: textWithoutNul().describe('a sandbox id (`sbx_…`) or its name') });
