import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { scopes } from '../../domain/orgs/events.ts';
import type { OrgDirectory } from '../auth/org-directory.ts';
import { keyPrincipalOf } from '../auth/plugin.ts';
import { errorResponses } from '../error-responses.ts';
import { errorHandler, jsonErrorFormat } from '../errors.ts';

const meAnswer = z.object({
  data: z.object({
    org: z.object({ id: z.string(), name: z.string(), tracing_enabled: z.boolean() }),
    key: z.object({ id: z.string(), scopes: z.array(z.enum(scopes)) }),
  }),
});

/** `GET /api/me`: who the key belongs to (the command-line tool's `whoami`). Any live key. */
export const accountPlugin: FastifyPluginAsyncZod<{ directory: OrgDirectory }> = async (
  app,
  { directory },
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
      return {
        data: {
          org: { id: org.orgId, name: org.name, tracing_enabled: org.tracingEnabled },
          key: { id: principal.keyId, scopes: [...principal.scopes] },
        },
      };
    },
  );
};
