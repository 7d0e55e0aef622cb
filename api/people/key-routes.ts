import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { scopes } from '../../domain/orgs/events.ts';
import type { OrgState } from '../../domain/orgs/org.ts';
import { newApiKey } from '../auth/api-keys.ts';
import { errorResponses } from '../error-responses.ts';
import { commandMeta, type PeopleRouteDeps } from './commands.ts';
import { memberOrgOf, orgParams } from './org-access.ts';

// An org's API keys under Settings: created with chosen scopes (the secret answered once, only
// its hash kept), listed, revoked. Any member may.

const tags = ['people'];

const keyBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  scopes: z.array(z.enum(scopes)).min(1).describe('at least one; `inference:invoke` only from here'),
});

const keyObject = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(z.enum(scopes)),
  created_at: z.string(),
  created_by: z.string().describe("a person's id; empty for an operator's key"),
  revoked: z.boolean(),
});

function keyData(org: OrgState) {
  return Object.values(org.keys).map((key) => ({
    id: key.keyId,
    name: key.name,
    prefix: key.keyPrefix,
    scopes: [...key.scopes],
    created_at: key.createdAt.toISOString(),
    created_by: key.createdBy,
    revoked: key.revoked,
  }));
}

export const keyRoutes: FastifyPluginAsyncZod<PeopleRouteDeps> = async (app, deps) => {
  const { directory, commands, now } = deps;
  const session = app.requireSession();
  const memberOrg = (orgId: string, personId: string) => memberOrgOf(directory, orgId, personId);

  app.get(
    '/orgs/:orgId/keys',
    {
      onRequest: session,
      schema: {
        tags,
        summary: "The org's API keys (never their secrets)",
        params: orgParams,
        response: { 200: z.object({ data: z.array(keyObject) }), ...errorResponses('people') },
      },
    },
    async (request) => ({ data: keyData(memberOrg(request.params.orgId, request.person!.personId)) }),
  );

  app.post(
    '/orgs/:orgId/keys',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Create an API key with chosen scopes: its secret is answered this once',
        params: orgParams,
        body: keyBody,
        response: {
          201: z.object({ data: keyObject.extend({ key: z.string() }) }),
          ...errorResponses('people'),
        },
      },
    },
    async (request, reply) => {
      const personId = request.person!.personId;
      const org = memberOrg(request.params.orgId, personId);
      const created = newApiKey(commandMeta(org.orgId, now()), {
        name: request.body.name,
        scopes: [...new Set(request.body.scopes)],
        createdBy: personId,
      });
      await commands.org(created.command);
      const { keyId } = created.command;
      const key = keyData(directory.org(org.orgId)!).find((candidate) => candidate.id === keyId)!;
      return reply.status(201).send({ data: { ...key, key: created.key } });
    },
  );

  app.delete(
    '/orgs/:orgId/keys/:keyId',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Revoke an API key: it and the sandbox tokens it minted stop working within a second',
        params: orgParams.extend({ keyId: z.string().max(100) }),
        response: { 204: z.null(), ...errorResponses('people') },
      },
    },
    async (request, reply) => {
      const org = memberOrg(request.params.orgId, request.person!.personId);
      await commands.org({
        ...commandMeta(org.orgId, now()),
        type: 'RevokeApiKey',
        keyId: request.params.keyId,
      });
      return reply.status(204).send(null);
    },
  );
};
