import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { roles, scopes } from '../../domain/orgs/events.ts';
import { invitationLifetimeMs, isMember } from '../../domain/orgs/membership.ts';
import type { OrgState } from '../../domain/orgs/org.ts';
import { emailField } from '../../domain/people/credentials.ts';
import { newId } from '../../platform/ids.ts';
import { peopleByIds } from '../../stores/people.ts';
import { newApiKey } from '../auth/api-keys.ts';
import { errorResponses } from '../error-responses.ts';
import { ApiError } from '../errors.ts';
import { commandMeta, type PeopleRouteDeps } from './commands.ts';
import { invitationLink, newInvitationToken } from './invitation-links.ts';

// An org's people and keys as its members manage them (the dashboard's Settings): members and
// invitations (owners invite and remove; anyone may leave), and API keys with chosen scopes.

const tags = ['people'];
const orgParams = z.object({ orgId: z.string().max(100) });

const inviteBody = z.strictObject({ email: emailField, role: z.enum(roles).default('member') });
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

const membersAnswer = z.object({
  data: z.object({
    members: z.array(
      z.object({
        person_id: z.string(),
        email: z.string(),
        name: z.string(),
        role: z.enum(roles),
        added_at: z.string(),
      }),
    ),
    invitations: z.array(
      z.object({
        id: z.string(),
        email: z.string(),
        role: z.enum(roles),
        expires_at: z.string(),
        invited_by: z.string(),
      }),
    ),
  }),
});

const notAMember = () =>
  new ApiError(
    'org_not_found',
    404,
    'You are not a member of this org: pick one of yours from GET /api/auth/session.',
  );

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

const orgAnswer = z.object({
  data: z.object({
    id: z.string(),
    name: z.string(),
    role: z.enum(roles),
    tracing: z.object({
      enabled: z.boolean(),
      requested_at: z.string().nullable().describe('when a member asked to join the tracing beta'),
    }),
  }),
});

function orgData(org: OrgState, personId: string) {
  return {
    id: org.orgId,
    name: org.name,
    role: org.members[personId]!.role,
    tracing: { enabled: org.tracingEnabled, requested_at: org.tracingRequested?.at.toISOString() ?? null },
  };
}

export const orgRoutes: FastifyPluginAsyncZod<PeopleRouteDeps> = async (app, deps) => {
  const { pool, directory, commands, now } = deps;
  const session = app.requireSession();

  /** The org in the path, if the person in the session belongs to it (else 404: it reveals nothing). */
  const memberOrg = (orgId: string, personId: string): OrgState => {
    const org = directory.org(orgId);
    if (!org || !isMember(org, personId)) throw notAMember();
    return org;
  };
  const actorOf = (personId: string) => ({ kind: 'person', personId }) as const;

  app.get(
    '/orgs/:orgId',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'The org as its member sees it, with its tracing beta status',
        params: orgParams,
        response: { 200: orgAnswer, ...errorResponses('people') },
      },
    },
    async (request) => {
      const personId = request.person!.personId;
      return { data: orgData(memberOrg(request.params.orgId, personId), personId) };
    },
  );

  app.post(
    '/orgs/:orgId/tracing/request',
    {
      onRequest: session,
      schema: {
        tags,
        summary:
          'Ask to join the tracing beta (spec 001): an operator grants it; asking again changes nothing',
        params: orgParams,
        response: { 200: orgAnswer, ...errorResponses('people') },
      },
    },
    async (request) => {
      const personId = request.person!.personId;
      const org = memberOrg(request.params.orgId, personId);
      await commands.org({ ...commandMeta(org.orgId, now()), type: 'RequestTracing', personId });
      return { data: orgData(directory.org(org.orgId)!, personId) };
    },
  );

  app.get(
    '/orgs/:orgId/members',
    {
      onRequest: session,
      schema: {
        tags,
        summary: "The org's members and open invitations",
        params: orgParams,
        response: { 200: membersAnswer, ...errorResponses('people') },
      },
    },
    async (request) => {
      const org = memberOrg(request.params.orgId, request.person!.personId);
      const members = Object.values(org.members);
      const people = await peopleByIds(
        pool,
        members.map((member) => member.personId),
      );
      const at = now().getTime();
      return {
        data: {
          members: members.map((member) => ({
            person_id: member.personId,
            email: people.get(member.personId)?.email ?? '',
            name: people.get(member.personId)?.name ?? '',
            role: member.role,
            added_at: member.addedAt.toISOString(),
          })),
          invitations: Object.values(org.invitations)
            .filter((invitation) => invitation.status === 'open' && invitation.expiresAt.getTime() > at)
            .map((invitation) => ({
              id: invitation.invitationId,
              email: invitation.email,
              role: invitation.role,
              expires_at: invitation.expiresAt.toISOString(),
              invited_by: invitation.invitedBy,
            })),
        },
      };
    },
  );

  app.post(
    '/orgs/:orgId/invitations',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Invite someone by email (owners): the link is answered once, to pass on',
        params: orgParams,
        body: inviteBody,
        response: {
          201: z.object({
            data: z.object({
              id: z.string(),
              email: z.string(),
              role: z.enum(roles),
              expires_at: z.string(),
              link: z.string(),
            }),
          }),
          ...errorResponses('people'),
        },
      },
    },
    async (request, reply) => {
      const personId = request.person!.personId;
      const org = memberOrg(request.params.orgId, personId);
      const invitationId = newId('inv');
      const { token, secretHash } = newInvitationToken(org.orgId, invitationId);
      const at = now();
      const expiresAt = new Date(at.getTime() + invitationLifetimeMs);
      const { email, role } = request.body;
      await commands.org({
        ...commandMeta(org.orgId, at),
        actor: actorOf(personId),
        type: 'InviteMember',
        invitationId,
        email,
        role,
        secretHash,
        expiresAt,
      });
      const origin = `${request.protocol}://${request.host}`;
      return reply.status(201).send({
        data: {
          id: invitationId,
          email,
          role,
          expires_at: expiresAt.toISOString(),
          link: invitationLink(origin, token),
        },
      });
    },
  );

  app.delete(
    '/orgs/:orgId/invitations/:invitationId',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Withdraw an open invitation (owners)',
        params: orgParams.extend({ invitationId: z.string().max(100) }),
        response: { 204: z.null(), ...errorResponses('people') },
      },
    },
    async (request, reply) => {
      const personId = request.person!.personId;
      const org = memberOrg(request.params.orgId, personId);
      await commands.org({
        ...commandMeta(org.orgId, now()),
        actor: actorOf(personId),
        type: 'RevokeInvitation',
        invitationId: request.params.invitationId,
      });
      return reply.status(204).send(null);
    },
  );

  app.delete(
    '/orgs/:orgId/members/:personId',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Remove a member (owners), or leave: every sandbox token they minted stops working',
        params: orgParams.extend({ personId: z.string().max(100) }),
        response: { 204: z.null(), ...errorResponses('people') },
      },
    },
    async (request, reply) => {
      const actor = request.person!.personId;
      const org = memberOrg(request.params.orgId, actor);
      await commands.org({
        ...commandMeta(org.orgId, now()),
        actor: actorOf(actor),
        type: 'RemoveMember',
        personId: request.params.personId,
      });
      return reply.status(204).send(null);
    },
  );

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
      const created = newApiKey();
      const keyId = newId('key');
      const { name } = request.body;
      const keyScopes = [...new Set(request.body.scopes)];
      await commands.org({
        ...commandMeta(org.orgId, now()),
        type: 'CreateApiKey',
        keyId,
        name,
        keyHash: created.keyHash,
        keyPrefix: created.keyPrefix,
        scopes: keyScopes,
        createdBy: personId,
      });
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
