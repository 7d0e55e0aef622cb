import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { hashApiKey } from '../auth/api-keys.ts';
import { errorResponses } from '../error-responses.ts';
import { KeysNotLoaded } from '../errors.ts';
import { commandMeta, type PeopleRouteDeps } from './commands.ts';
import { useOauthConventions } from './oauth-errors.ts';

const tags = ['people'];

const revokeBody = z.object({
  token: z.string().max(200).describe('the API key to revoke'),
  token_type_hint: z.string().max(50).optional().describe('ignored: the token is an API key'),
});

/**
 * RFC 7009 token revocation, for the command-line tool's `logout`: a key revokes itself (holding
 * it is the proof). 200 whatever the token was, as the RFC says, so the answer tells nothing
 * about other keys; a key the API cannot judge yet (just restarted) is 503, never a silent 200.
 */
export const revocationRoutes: FastifyPluginAsyncZod<PeopleRouteDeps> = async (app, deps) => {
  const { directory, commands, now, keysLoaded } = deps;
  await useOauthConventions(app);
  app.post(
    '/auth/revoke',
    {
      schema: {
        tags,
        summary: 'Revoke an API key with the key itself (RFC 7009): the command-line logout',
        body: revokeBody,
        response: { 200: z.object({}), ...errorResponses('people.revoke') },
      },
    },
    async (request) => {
      if (!keysLoaded()) throw new KeysNotLoaded();
      const principal = directory.principal(hashApiKey(request.body.token));
      if (principal)
        await commands.org({
          ...commandMeta(principal.orgId, now()),
          type: 'RevokeApiKey',
          keyId: principal.keyId,
        });
      return {};
    },
  );
};
