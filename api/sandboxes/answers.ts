import { z } from 'zod';
import { sandboxSizes } from '../../domain/sandboxes/events.ts';
import { desktopStatus, type Sandbox, sandboxStatuses } from '../../domain/sandboxes/sandbox.ts';
import { abilities } from '../../domain/sandboxes/tokens.ts';
import { networkData, networkObject } from '../../schemas/network-answer.ts';

// The answers of the sandbox routes, as zod schemas (they document the routes in /openapi.json)
// and the functions that write them. Every answer is `{ data: ... }` except the screenshot and a
// file's bytes.

export const desktopStatusAnswer = z.union([
  z.object({ running: z.literal(false) }),
  z.object({
    running: z.literal(true),
    size: z.string().describe('WIDTHxHEIGHT'),
    display: z.string(),
    vnc_port: z.number().int(),
    devtools: z.string(),
    browser: z.string(),
  }),
]);

/**
 * The sandbox object (spec: fields beyond `id`, `name`, `status`, `metadata` are not shown; these
 * are ours). Times are ISO 8601; `last_used_at` starts the idle clock.
 */
export const sandboxObject = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(sandboxStatuses),
  size: z.enum(sandboxSizes),
  metadata: z.record(z.string(), z.string()),
  idle_timeout_seconds: z.number().int(),
  forked_from: z.string().nullable(),
  has_secrets: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  last_used_at: z.string(),
  desktop: desktopStatusAnswer,
  host: z.string().describe("the sandbox host that holds it (a fork is on its source's)"),
  network: networkObject,
  template: z
    .string()
    .nullable()
    .describe("the template it was made from (a fork's, its source's), or null: the base"),
});

export const data = <T extends z.ZodType>(schema: T) => z.object({ data: schema });

export function sandboxData(sandbox: Sandbox): z.output<typeof sandboxObject> {
  return {
    id: sandbox.id,
    name: sandbox.name,
    status: sandbox.status,
    size: sandbox.size,
    metadata: sandbox.metadata,
    idle_timeout_seconds: sandbox.idleTimeoutSeconds,
    forked_from: sandbox.forkedFrom,
    has_secrets: sandbox.hasSecrets,
    created_at: sandbox.createdAt.toISOString(),
    updated_at: sandbox.updatedAt.toISOString(),
    last_used_at: sandbox.lastUsedAt.toISOString(),
    desktop: desktopStatus(sandbox.desktop),
    host: sandbox.host,
    network: networkData(sandbox.network),
    template: sandbox.template,
  };
}

export const execAnswer = z.object({
  exit_code: z.number().int(),
  stdout: z.string(),
  stderr: z.string(),
  truncated: z.boolean(),
});

export const fileWrittenAnswer = z.object({ path: z.string(), size_bytes: z.number().int() });

export const tokenAnswer = z.object({
  token: z.string(),
  sandbox: z.string(),
  abilities: z.array(z.enum(abilities)),
  origins: z.array(z.string()),
  expires_at: z.string(),
});

export const inputAnswer = z.union([
  z.object({ done: z.string() }),
  z.object({ x: z.number().int(), y: z.number().int() }),
]);

/** A success answered as raw bytes of `mediaType` (a file, a PNG), as /openapi.json documents it. */
export const bytesAnswer = (mediaType: string, description: string) =>
  z
    .unknown()
    .meta({ description, content: { [mediaType]: { schema: { type: 'string', format: 'binary' } } } });

/** What the desktop's accessibility routes answer: the browser's tree or a node's result. */
export const accessibilityAnswer = data(
  z.unknown().describe("the browser's accessibility node, or a node's result"),
);
