import { z } from 'zod';
import { templateReference } from '../templates/names.ts';
import { textWithoutNul } from '../text.ts';
import { sandboxSizes } from './events.ts';
import { absolutePath, checkedString, intIn, queryBoolean } from './fields.ts';
import { checkSandboxName } from './names.ts';
import { defaultNetwork, networkPolicyBody } from './network.ts';
import { abilities, maxOrigins, parseOrigin, tokenLifetimeSeconds } from './tokens.ts';

// Bodies and queries of the sandbox routes other than the desktop's (routes.ts), in wire names
// (snake_case), from the spec's tables: `sandboxes.create` options, metadata rules, Lookup,
// `Sandbox` methods, "Authentication" 3, "Limits". Parse with `parseSandboxBody` (parse.ts).
//
// Unknown fields are refused: a misspelt optional field (`idleTimeoutSeconds` sent in camelCase)
// would otherwise be dropped silently. Refusing can be relaxed later; the reverse cannot.

export const metadataLimits = { keys: 16, keyLength: 40, valueLength: 256 } as const;

const metadataKey = z
  .string()
  .regex(/^[a-z0-9_.-]{1,40}$/, 'keys are 1 to 40 characters of lowercase letters, digits, `_`, `.` and `-`');

/** At most 16 keys; `{}` means none (and, in `update`, removes them all). */
export const metadata = z
  .record(metadataKey, textWithoutNul('send a string').max(256, 'send at most 256 characters'))
  .refine((labels) => Object.keys(labels).length <= metadataLimits.keys, {
    message: `send at most ${metadataLimits.keys} keys`,
  });

export const sandboxName = checkedString(checkSandboxName);

/** 0 means never; otherwise 60 to 604800 seconds. */
export const idleTimeoutSeconds = z
  .int('send 0 (never) or an integer from 60 to 604800')
  .refine((seconds) => seconds === 0 || (seconds >= 60 && seconds <= 604_800), {
    message: 'send 0 (never) or an integer from 60 to 604800',
  });

export const createSandboxBody = z.strictObject({
  size: z.enum(sandboxSizes).default('small'),
  name: sandboxName.optional(),
  metadata: metadata.default({}),
  idle_timeout_seconds: idleTimeoutSeconds.default(0),
  idempotency_key: textWithoutNul()
    .min(1, 'send 1 to 255 characters')
    .max(255, 'send 1 to 255 characters')
    .optional(),
  /** The open internet (less the always-denied ranges) unless it says otherwise (network.ts). */
  network: networkPolicyBody.default(() => ({ ...defaultNetwork, allow: [], deny: [] })),
  /** A ready template's id or name (domain/templates/): the sandbox starts from its files. */
  template: templateReference.optional(),
});
export type CreateSandboxBody = z.output<typeof createSandboxBody>;

export const updateSandboxBody = z.strictObject({
  metadata: metadata.optional(),
  idle_timeout_seconds: idleTimeoutSeconds.optional(),
  /** Replaces the whole policy, as `metadata` replaces every label; fields left out take their defaults. */
  network: networkPolicyBody.optional(),
});
export type UpdateSandboxBody = z.output<typeof updateSandboxBody>;

export const forkSandboxBody = z.strictObject({ name: sandboxName.optional() });
export type ForkSandboxBody = z.output<typeof forkSandboxBody>;

const metadataParam = /^metadata\[(.+)\]$/;

/**
 * The list query encodes metadata as `metadata[key]=value`, repeated per key (Stripe's form), as
 * flat query keys; an already nested `metadata` object (a qs-style parser) is taken as it is.
 */
function collectMetadata(query: unknown): unknown {
  if (typeof query !== 'object' || query === null) return query;
  const rest: Record<string, unknown> = {};
  const labels: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    const match = metadataParam.exec(key);
    if (match?.[1] !== undefined) labels[match[1]] = value;
    else rest[key] = value;
  }
  return Object.keys(labels).length === 0 ? rest : { ...rest, metadata: labels };
}

export const listSandboxesQuery = z.preprocess(
  collectMetadata,
  z.strictObject({ metadata: metadata.optional(), all: queryBoolean.default(false) }),
);
export type ListSandboxesQuery = z.output<typeof listSandboxesQuery>;

export const execLimits = { commandLength: 65_536, timeoutSeconds: { max: 600, default: 60 } } as const;

const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'names are letters, digits and `_`, not starting with a digit');

/** Runs as root; `cwd` defaults to `/root`. */
export const execBody = z.strictObject({
  command: textWithoutNul('send a shell command')
    .min(1, 'send a shell command')
    .max(execLimits.commandLength, 'send a command of at most 65,536 characters'),
  cwd: absolutePath.optional(),
  env: z.record(envName, textWithoutNul('send a string')).optional(),
  timeout_seconds: intIn(1, execLimits.timeoutSeconds.max).default(execLimits.timeoutSeconds.default),
});
export type ExecBody = z.output<typeof execBody>;

/** 64 MB, read as MiB: the larger reading refuses nobody the spec promises to serve. */
export const fileSizeLimitBytes = 64 * 1024 * 1024;

/** Both `GET` and `PUT …/files` name the file in the query; the bytes travel raw (routes.ts). */
export const fileQuery = z.strictObject({ path: absolutePath });
export type FileQuery = z.output<typeof fileQuery>;

const origin = checkedString(parseOrigin);

export const createTokenBody = z.strictObject({
  // Exactly one ability: `['view', 'control']`, `[]` or a duplicate is refused, not read as
  // `control`, so a caller never holds a token other than the one it asked for (issue 14, item 7).
  abilities: z.tuple([z.enum(abilities, 'send `view` or `control`')], 'send `["view"]` or `["control"]`'),
  expires_in: intIn(tokenLifetimeSeconds.min, tokenLifetimeSeconds.max).default(tokenLifetimeSeconds.default),
  origins: z
    .array(origin)
    .max(maxOrigins, `send at most ${maxOrigins} origins`)
    .transform((list) => [...new Set(list)])
    .default([]),
});
export type CreateTokenBody = z.output<typeof createTokenBody>;
