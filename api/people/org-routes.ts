import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { roles } from '../../domain/orgs/events.ts';
import { invitationLifetimeMs, invitationStatus } from '../../domain/orgs/membership.ts';
import type { OrgState } from '../../domain/orgs/org.ts';
import { emailField } from '../../domain/people/credentials.ts';
import { newId } from '../../platform/ids.ts';
import { peopleByIds } from '../../stores/people.ts';
import { errorResponses } from '../error-responses.ts';
import { requestOrigin } from './answers.ts';
import { commandMeta, type PeopleRouteDeps } from './commands.ts';
import { invitationLink, newInvitationToken } from './invitation-links.ts';
import { memberOrgOf, orgParams } from './org-access.ts';

// An org as its members manage it (the dashboard's Settings and Tracing pages): creating one,
// members and invitations (owners invite and remove; anyone may leave), and the tracing beta.
// Its API keys are key-routes.ts.

const tags = ['people'];

const inviteBody = z.strictObject({ email: emailField, role: z.enum(roles).default('member') });
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

  const memberOrg = (orgId: string, personId: string) => memberOrgOf(directory, orgId, personId);
  const actorOf = (personId: string) => ({ kind: 'person', personId }) as const;

  app.post(
    '/orgs',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Create an org with the person logged in as its owner (as at sign-up)',
        body: z.strictObject({ name: z.string().trim().min(1).max(100) }),
        response: { 201: orgAnswer, ...errorResponses('people') },
      },
    },
    async (request, reply) => {
      const personId = request.person!.personId;
      const orgId = newId('org');
      await commands.org({
        ...commandMeta(orgId, now()),
        type: 'CreateOrg',
        name: request.body.name,
        owner: personId,
      });
      return reply.status(201).send({ data: orgData(directory.org(orgId)!, personId) });
    },
  );

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
      const at = now();
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
            .filter((invitation) => invitationStatus(invitation, at) === 'open')
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
      return reply.status(201).send({
        data: {
          id: invitationId,
          email,
          role,
          expires_at: expiresAt.toISOString(),
          link: invitationLink(requestOrigin(request), token),
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
};
