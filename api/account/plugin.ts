import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { scopes } from '../../domain/orgs/events.ts';
import type { PgPool } from '../../platform/postgres.ts';
import { personById } from '../../stores/people.ts';
import type { OrgDirectory } from '../auth/org-directory.ts';
import { keyPrincipalOf } from '../auth/plugin.ts';
import { errorResponses } from '../error-responses.ts';
import { errorHandler, jsonErrorFormat } from '../errors.ts';

const meAnswer = z.object({
  data: z.object({
    org: z.object({ id: z.string(), name: z.string(), tracing_enabled: z.boolean() }),
    key: z.object({ id: z.string(), name: z.string(), scopes: z.array(z.enum(scopes)) }),
    person: z
      .object({ id: z.string(), email: z.string(), name: z.string() })
      .nullable()
      .describe("who created the key (Settings or the command-line login); null for an operator's key"),
  }),
});

/** `GET /api/me`: the key, its org and its person (the command-line tool's `whoami`). Any live key. */
export const accountPlugin: FastifyPluginAsyncZod<{ directory: OrgDirectory; pool: PgPool }> = async (
  app,
  { directory, pool },
) => {
  app.setErrorHandler(errorHandler(jsonErrorFormat));
  app.get(
    '/me',
    {
      onRequest: app.requireKey(),
      schema: { tags: ['account'], response: { 200: meAnswer, ...errorResponses('account') } },
    },
    async (request) => {
      const principal = keyPrincipalOf(request);
      const org = directory.org(principal.orgId)!;
      const key = org.keys[principal.keyId]!;
      const person = key.createdBy === '' ? undefined : await personById(pool, key.createdBy);
      return {
        data: {
          org: { id: org.orgId, name: org.name, tracing_enabled: org.tracingEnabled },
          key: { id: principal.keyId, name: key.name, scopes: [...principal.scopes] },
          person: person ? { id: person.personId, email: person.email, name: person.name } : null,
        },
      };
    },
  );
};
