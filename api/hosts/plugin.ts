import type { FastifyPluginAsync } from 'fastify';
import type { z } from 'zod';
import { hostLease } from '../../platform/fleet-settings.ts';
import { carriesHostSecret } from '../../platform/host-secret.ts';
import { announcePath, hostAnnouncement, hostId } from '../../schemas/sandbox-hosts.ts';
import type { SandboxHosts } from '../../stores/sandbox-hosts.ts';
import { ApiError, errorHandler, jsonErrorFormat } from '../errors.ts';

// Where sandbox hosts announce themselves (issue 47; sandbox-host/membership.ts): any API replica
// takes a host's announcement and writes its lease to Postgres, where every replica reads the
// fleet from. Platform processes only: the shared secret, compared in constant time, and a wrong
// one is refused and logged with the address it came from. Not in /openapi.json.

const wrongSecret = () =>
  new ApiError(
    'unauthorized',
    401,
    'The host secret is wrong: start the sandbox host with the same ORRERY_HOST_SECRET as the API.',
  );

/** A part of the announcement, parsed; a refusal names the field. */
function parsed<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const param = (issue?.path ?? []).join('.');
  throw new ApiError(
    'invalid_request',
    422,
    `Invalid \`${param || 'body'}\`: ${issue?.message ?? 'check it'}.`,
    param,
  );
}

export const hostsPlugin: FastifyPluginAsync<{ hosts: SandboxHosts; secret: string }> = async (
  app,
  { hosts, secret },
) => {
  app.setErrorHandler(errorHandler(jsonErrorFormat));
  app.addHook('onRequest', async (request) => {
    if (carriesHostSecret(request.headers.authorization, secret)) return;
    request.log.warn(
      { remote: request.ip, url: request.url },
      'fleet: refused a host without the host secret',
    );
    throw wrongSecret();
  });

  app.put<{ Params: { hostId: string } }>(announcePath, { schema: { hide: true } }, async (request) => {
    const id = parsed(hostId, request.params.hostId);
    const host = await hosts.announce(id, parsed(hostAnnouncement, request.body), hostLease.leaseSeconds);
    return { lease_seconds: hostLease.leaseSeconds, draining: host.draining };
  });

  app.delete<{ Params: { hostId: string } }>(
    announcePath,
    { schema: { hide: true } },
    async (request, reply) => {
      await hosts.leave(parsed(hostId, request.params.hostId));
      return reply.status(204).send();
    },
  );
};
