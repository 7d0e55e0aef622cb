import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { roles } from '../../domain/orgs/events.ts';
import { invitationStatus } from '../../domain/orgs/membership.ts';
import { personById } from '../../stores/people.ts';
import { errorResponses } from '../error-responses.ts';
import { Unavailable } from '../errors.ts';
import { membershipsOf, orgMembership } from './answers.ts';
import type { PeopleRouteDeps } from './commands.ts';
import { badInvitation, decideAcceptance, invitationOf } from './invitations.ts';

// An invitation link as its holder uses it: what it invites to (the link is the proof, so no
// session is needed to read it), and accepting it as the person logged in.

const tags = ['people'];
const tokenParams = z.object({ token: z.string().max(300) });

const invitationAnswer = z.object({
  data: z.object({
    org: z.object({ id: z.string(), name: z.string() }),
    email: z.string().describe('only the person with this email may accept'),
    role: z.enum(roles),
    status: z.enum(['open', 'accepted', 'revoked', 'expired']),
    expires_at: z.string(),
  }),
});

export const invitationRoutes: FastifyPluginAsyncZod<PeopleRouteDeps> = async (app, deps) => {
  const { pool, directory, commands, now } = deps;

  app.get(
    '/invitations/:token',
    {
      schema: {
        tags,
        summary:
          'What an invitation link invites to: the org, the email, the role and whether it is still open',
        params: tokenParams,
        response: { 200: invitationAnswer, ...errorResponses('people.invitation') },
      },
    },
    async (request) => {
      const secret = invitationOf(request.params.token);
      const org = directory.org(secret.orgId);
      const invitation = org?.invitations[secret.invitationId];
      if (!org || !invitation || invitation.secretHash !== secret.secretHash) throw badInvitation();
      return {
        data: {
          org: { id: org.orgId, name: org.name },
          email: invitation.email,
          role: invitation.role,
          status: invitationStatus(invitation, now()),
          expires_at: invitation.expiresAt.toISOString(),
        },
      };
    },
  );

  app.post(
    '/invitations/accept',
    {
      onRequest: app.requireSession(),
      schema: {
        tags,
        summary: 'Accept an invitation as the person logged in',
        body: z.strictObject({ invitation: z.string().describe('the token from the invitation link') }),
        response: { 200: z.object({ data: orgMembership }), ...errorResponses('people') },
      },
    },
    async (request) => {
      const person = await personById(pool, request.person!.personId);
      if (!person) throw new Unavailable('Your account is still being set up');
      const events = await commands.publishOrg(
        decideAcceptance(commands, request.body.invitation, person, now()),
      );
      const orgId = events[0]!.orgId;
      const [membership] = membershipsOf([directory.org(orgId)!], person.personId);
      return { data: membership! };
    },
  );
};
