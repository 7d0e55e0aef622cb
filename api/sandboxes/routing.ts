import { SandboxError } from '../../domain/sandboxes/errors.ts';
import { noRoomMessage, sizeUnavailableMessage } from '../../domain/sandboxes/hosts.ts';
import type { NetworkPolicy } from '../../domain/sandboxes/network.ts';
import type { CreateSandboxBody } from '../../domain/sandboxes/requests.ts';
import type { Sandbox } from '../../domain/sandboxes/sandbox.ts';
import { requireReady } from '../../domain/templates/decide.ts';
import type { Template } from '../../domain/templates/template.ts';
import { recordSandboxCommand, sandboxCommand } from '../../producers/sandbox.ts';
import {
  type ActedOn,
  actedOn,
  hostPath,
  hostPaths,
  type sandboxChanges,
} from '../../schemas/sandbox-hosts.ts';
import type { FleetHost } from '../../stores/sandbox-hosts.ts';
import { ApiError } from '../errors.ts';
import type { SandboxContext } from './context.ts';
import { type HostCall, HostNotReached } from './host-client.ts';

// How the API reaches the host that holds a sandbox (issue 47). Every change to a sandbox is
// decided by its host, whichever replica the caller reached: the route authorizes, the host acts
// and waits for the read model, and the answer is read back from the read model. A new sandbox
// goes where placement finds room (fleet.ts), trying the next host when one is full or was not
// reached; a lost or deleted sandbox, which no host holds, is changed here.

/** No live host has room for the size now: 503, retried later. */
export const noCapacity = (size: Sandbox['size']) =>
  new ApiError('no_capacity', 503, noRoomMessage(size), undefined, { 'retry-after': '10' });

/** No live host could ever hold the size (its cores): a retry would not help. */
export const sizeUnavailable = (size: Sandbox['size']) =>
  new ApiError('size_unavailable', 409, sizeUnavailableMessage(size), 'size');

/** The sandbox as the read model shows it after a host acted on it. */
export async function readBack(ctx: SandboxContext, acted: ActedOn): Promise<Sandbox> {
  const loaded = await ctx.store.byId(acted.sandbox_id);
  if (!loaded) throw new Error(`sandbox ${acted.sandbox_id} is not in the read model after its host acted`);
  return loaded.sandbox;
}

/** Calls the sandbox's host with a command that answers which sandbox it left; answers it as read back. */
export async function actOnHost(ctx: SandboxContext, sandbox: Sandbox, call: HostCall): Promise<Sandbox> {
  return readBack(ctx, await ctx.hosts.json(sandbox.host, call, actedOn));
}

/** A new sandbox on a host with room; a retry with its idempotency key answers the first's. */
export async function createSandbox(
  ctx: SandboxContext,
  orgId: string,
  body: CreateSandboxBody,
  rawBody: unknown,
): Promise<Sandbox> {
  const key = body.idempotency_key;
  const first = key === undefined ? undefined : await ctx.store.byIdempotencyKey(orgId, key);
  if (first) return bringUp(ctx, first.sandbox);
  const template = body.template === undefined ? undefined : await readyTemplate(ctx, orgId, body.template);
  for (const host of await placement(ctx, body.size, template)) {
    try {
      const call = {
        method: 'POST',
        path: hostPaths.create,
        json: { org_id: orgId, body: rawBody },
      } as const;
      const created = await readBack(ctx, await ctx.hosts.json(host.hostId, call, actedOn));
      // A concurrent retry with the same key made it elsewhere first: that one is the sandbox.
      return created.host === host.hostId ? created : bringUp(ctx, created);
    } catch (error) {
      if (error instanceof HostNotReached) continue;
      if (error instanceof ApiError && error.code === 'no_capacity') continue;
      throw error;
    }
  }
  if (template) throw templateHostFull(template, body.size);
  throw (await ctx.fleet.holdsSize(body.size)) ? noCapacity(body.size) : sizeUnavailable(body.size);
}

/** The template's host, the only one its sandboxes can go to, has no room or is not reached: 503. */
export const templateHostFull = (template: Template, size: Sandbox['size']) =>
  new ApiError(
    'no_capacity',
    503,
    `The sandbox host keeping the template \`${template.name}\` (${template.host}) has no room for a \`${size}\` sandbox now, or cannot be reached: retry in a few seconds.`,
    'template',
    { 'retry-after': '10' },
  );

/**
 * The ready template a new sandbox (or run) is made from, refused before anything is made: 404
 * unknown, 409 `template_not_ready` naming it (domain/templates/decide.ts requireReady).
 */
export async function readyTemplate(
  ctx: Pick<SandboxContext, 'templates'>,
  orgId: string,
  reference: string,
): Promise<Template> {
  return requireReady((await ctx.templates.resolve(orgId, reference))?.template);
}

/**
 * Where a new sandbox (or run) may go, best first: a sandbox from a template goes to the
 * template's host, where its files are (as a fork goes to its source's), if that host has room.
 */
export async function placement(
  ctx: Pick<SandboxContext, 'fleet'>,
  size: Sandbox['size'],
  template: Template | undefined,
): Promise<FleetHost[]> {
  const hosts = await ctx.fleet.placement(size);
  return template === undefined ? hosts : hosts.filter((host) => host.hostId === template.host);
}

/** A sandbox a create's retry found: still starting means its host brings it up now. */
async function bringUp(ctx: SandboxContext, sandbox: Sandbox): Promise<Sandbox> {
  if (sandbox.status !== 'starting') return sandbox;
  return actOnHost(ctx, sandbox, { method: 'POST', path: hostPath(hostPaths.converge, sandbox.id) });
}

/** No host holds a deleted or lost sandbox: what is still decided on it is recorded here. */
const hostless = (sandbox: Sandbox) => sandbox.status === 'deleted' || sandbox.status === 'lost';

/** stop, resume, restart, destroy and the secrets flag, on the sandbox's host (or here, once no host holds it). */
export function changeSandbox(
  ctx: SandboxContext,
  sandbox: Sandbox,
  command: (typeof sandboxChanges)[number],
): Promise<Sandbox> {
  if (hostless(sandbox)) return recordWithoutHost(ctx, sandbox, { type: command });
  return actOnHost(ctx, sandbox, {
    method: 'POST',
    path: hostPath(hostPaths.change, sandbox.id),
    json: { command },
  });
}

/** What an update may change. */
type SandboxChanges = {
  metadata?: Sandbox['metadata'];
  idleTimeoutSeconds?: number;
  network?: NetworkPolicy;
};

/**
 * Metadata, the idle timeout and the network policy, on the sandbox's host, which also applies a
 * new policy to its runtime (or here, once no host holds it).
 */
export function updateSandbox(
  ctx: SandboxContext,
  sandbox: Sandbox,
  changes: SandboxChanges,
  rawBody: unknown,
): Promise<Sandbox> {
  if (hostless(sandbox)) return recordWithoutHost(ctx, sandbox, { type: 'UpdateSandbox', ...changes });
  return actOnHost(ctx, sandbox, {
    method: 'POST',
    path: hostPath(hostPaths.update, sandbox.id),
    json: rawBody,
  });
}

type HostlessCommand =
  | { type: (typeof sandboxChanges)[number] }
  | ({ type: 'UpdateSandbox' } & SandboxChanges);

/**
 * A lost sandbox's host is gone, and a deleted one needs none, so nothing else writes its stream:
 * the decider refuses what would need a host (resume, exec, the desktop), answers a repeat (a
 * second destroy) with the sandbox as it is, and the rest is recorded here.
 */
async function recordWithoutHost(
  ctx: SandboxContext,
  sandbox: Sandbox,
  body: HostlessCommand,
): Promise<Sandbox> {
  const loaded = await ctx.store.byId(sandbox.id);
  if (!loaded) throw new SandboxError('not_found');
  const { type, ...changes } = body;
  const command = sandboxCommand(sandbox, type, ctx.now(), changes);
  const deps = { producer: ctx.producer, readModel: ctx.store, timeoutMs: ctx.projectionTimeoutMs };
  return (await recordSandboxCommand(deps, command, loaded)).sandbox;
}
