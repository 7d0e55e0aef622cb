import { z } from 'zod';
import { runIdPattern } from '../domain/runs/names.ts';
import { sandboxSizes } from '../domain/sandboxes/events.ts';
import { runObject } from './run-answer.ts';

// What API replicas and sandbox hosts say to each other (issue 47): the host's HTTP interface,
// which API replicas call to reach the sandboxes and runs it holds, and the announcement a host
// sends the API to be a member of the fleet. Platform processes only: every request carries the
// shared secret `ORRERY_HOST_SECRET` as a bearer token, and nothing here is in /openapi.json.
//
// The API has parsed and authorized a request before it reaches a host, and forwards the
// caller's body as it came: the host parses it again with the same domain schema, so the two can
// never read one body two ways. What a sandbox command leaves is answered from the read model,
// which the host waited for: the host answers which sandbox it acted on, the API reads it. A run
// command answers the run as it left it, as the run routes always have.

/** The host's routes (`:id` a sandbox or run id, never a name: the API resolved it). */
export const hostPaths = {
  create: '/v1/sandboxes',
  converge: '/v1/sandboxes/:id/converge',
  fork: '/v1/sandboxes/:id/fork',
  change: '/v1/sandboxes/:id/change',
  update: '/v1/sandboxes/:id/update',
  exec: '/v1/sandboxes/:id/exec',
  file: '/v1/sandboxes/:id/file',
  desktop: '/v1/sandboxes/:id/desktop',
  input: '/v1/sandboxes/:id/desktop/input',
  screenshot: '/v1/sandboxes/:id/desktop/screenshot',
  accessibilityTree: '/v1/sandboxes/:id/desktop/accessibility',
  accessibilityAct: '/v1/sandboxes/:id/desktop/accessibility/act',
  screen: '/v1/sandboxes/:id/screen',
  snapshot: '/v1/sandboxes/:id/snapshot',
  createTemplate: '/v1/templates',
  deleteTemplate: '/v1/templates/:id/delete',
  placeRun: '/v1/runs',
  stopRun: '/v1/runs/:id/stop',
} as const;

/** The API's route a host announces itself on (PUT, renewing its lease) and leaves by (DELETE). */
export const announcePath = '/internal/hosts/:hostId';

export const hostIdPattern = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const hostId = z
  .string()
  .regex(hostIdPattern, 'a host id is 1 to 63 lowercase letters, digits, `_` and `-`');

/** `POST /v1/sandboxes`: a new sandbox of the org, on this host. */
export const createOnHost = z.strictObject({
  org_id: z.string().min(1),
  /** The caller's body as it came (domain/sandboxes/requests.ts createSandboxBody). */
  body: z.unknown(),
});

/** `POST /v1/sandboxes/:id/change`: the lifecycle commands that take no body. */
export const sandboxChanges = [
  'StopSandbox',
  'ResumeSandbox',
  'RestartSandbox',
  'DestroySandbox',
  'SetSecrets',
] as const;
export const changeOnHost = z.strictObject({ command: z.enum(sandboxChanges) });

/** What a lifecycle command answers: the sandbox it left, to be read from the read model. */
export const actedOn = z.strictObject({ sandbox_id: z.string().min(1) });
export type ActedOn = z.output<typeof actedOn>;

/**
 * What a template command answers (issue 48): the template it left, to be read from the read
 * model. `POST /v1/templates` takes `createOnHost` with the caller's body (domain/templates/
 * requests.ts createTemplateBody); a snapshot, the caller's body (snapshotBody); a delete, none.
 */
export const templateActedOn = z.strictObject({ template_id: z.string().min(1) });
export type TemplateActedOn = z.output<typeof templateActedOn>;

/** Who places or stops a run, as the API authenticated them (domain/runs/events.ts Actor). */
export const wireActor = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('key'), keyId: z.string(), personId: z.string().nullable() }),
  z.strictObject({ kind: z.literal('person'), personId: z.string() }),
]);

/** `POST /v1/runs`: what the API checked (credit, the size) and the caller's body as it came. */
export const placeRunOnHost = z.strictObject({
  org_id: z.string().min(1),
  /**
   * The run's id, chosen by the API when the placing came with an Idempotency-Key, so a retry
   * places the same run; a host places a run of an id at most once. Absent: the host chooses one.
   */
  run_id: z.string().regex(runIdPattern).optional(),
  placed_by: wireActor,
  has_credit: z.boolean(),
  size_available: z.boolean(),
  /** domain/runs/requests.ts placeRunBody, with the files and environment values (memory only). */
  body: z.unknown(),
});

export const stopRunOnHost = z.strictObject({ stopped_by: wireActor });

/**
 * What a run command answers: the run as that command left it (schemas/run-answer.ts), which the
 * API passes on: a placement answers the run as placed, though its host may have started it since.
 */
export const runActedOn = z.strictObject({ data: runObject });

const count = z.number().int().min(0);

/** `PUT /internal/hosts/:hostId`: a host's announcement, every few seconds while it lives. */
export const hostAnnouncement = z.strictObject({
  name: z.string().min(1).max(253),
  /** The fleet it joins: API replicas place only on hosts of their own (ORRERY_SANDBOX_FLEET). */
  fleet: hostId,
  /** Where API replicas reach its routes above. */
  url: z.url({ protocol: /^https?$/ }),
  cores: z.number().int().min(1).max(4096),
  memory_mib: z.number().int().min(1),
  memory_overcommit: z.number().positive().max(64),
  /** Sandboxes by size it holds when it holds nothing else (domain/sandboxes/hosts.ts). */
  capacity: z.strictObject(
    Object.fromEntries(sandboxSizes.map((size) => [size, count])) as Record<
      (typeof sandboxSizes)[number],
      typeof count
    >,
  ),
});
export type HostAnnouncement = z.output<typeof hostAnnouncement>;

/** The announcement's answer: how long the lease runs, and whether an operator drained the host. */
export const announcementAnswer = z.strictObject({
  lease_seconds: z.number().positive(),
  draining: z.boolean(),
});

/** A path with its `:id` filled in. */
export function hostPath(path: string, id: string): string {
  return path.replace(/:id|:hostId/, encodeURIComponent(id));
}
