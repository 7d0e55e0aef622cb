import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireExisting, templateNotFound } from '../../domain/templates/decide.ts';
import { createTemplateBody } from '../../domain/templates/requests.ts';
import type { Template } from '../../domain/templates/template.ts';
import { textWithoutNul } from '../../domain/text.ts';
import type { PgPool } from '../../platform/postgres.ts';
import { type createOnHost, hostPath, hostPaths, templateActedOn } from '../../schemas/sandbox-hosts.ts';
import { templateData, templateObject } from '../../schemas/template-answer.ts';
import { type LoadedTemplate, TemplateStore } from '../../stores/templates.ts';
import { errorResponses } from '../error-responses.ts';
import { ApiError } from '../errors.ts';
import { parsedInHandler } from '../request-validation.ts';
import { sandboxScope } from '../sandboxes/access.ts';
import { data } from '../sandboxes/answers.ts';
import { parse } from '../sandboxes/context.ts';
import { sandboxErrorHandler } from '../sandboxes/errors.ts';
import type { Fleet } from '../sandboxes/fleet.ts';
import { type HostClient, HostNotReached } from '../sandboxes/host-client.ts';
import { noCapacity } from '../sandboxes/routing.ts';

// Templates (issue 48): what a sandbox starts from instead of the bare base, built from a recipe
// (Debian packages and commands) on a sandbox host placement picks, or taken from a sandbox's files
// (POST /api/sandboxes/:id/snapshot, api/sandboxes/lifecycle-routes.ts). A template lives on the
// host that made it: the host decides and records every change to it (sandbox-host/templates.ts),
// and every answer is read back from the read model. An API key with `sandboxes:write` makes and
// deletes templates; a dashboard session lists, reads and deletes them. README "Templates".

export interface TemplatePluginOptions {
  pool: PgPool;
  fleet: Fleet;
  hosts: HostClient;
}

const tags = ['templates'];
const one = data(templateObject);
const idParams = z.object({ id: textWithoutNul().describe('a template id (`tpl_…`) or its name') });

/** The size of the throwaway sandbox a recipe is built in (sandbox-runtime/template-build.ts). */
const buildSize = 'standard';

export const templatesPlugin: FastifyPluginAsyncZod<TemplatePluginOptions> = async (app, opts) => {
  app.setErrorHandler(sandboxErrorHandler);
  app.setValidatorCompiler(parsedInHandler);
  const store = new TemplateStore(opts.pool);
  const { fleet, hosts } = opts;
  const readers = app.requireKeyOrSession(sandboxScope);

  const read = async (templateId: string): Promise<Template> => {
    const loaded = await store.byId(templateId);
    if (!loaded) throw new Error(`template ${templateId} is not in the read model after its host acted`);
    return loaded.template;
  };

  const resolve = async (orgId: string, idOrName: string): Promise<LoadedTemplate> => {
    const loaded = await store.resolve(orgId, idOrName);
    if (!loaded) throw templateNotFound();
    return loaded;
  };

  app.post(
    '/templates',
    {
      onRequest: app.requireKey(sandboxScope),
      schema: {
        tags,
        summary: 'Build a template from a recipe, in the background; answers it `building`',
        body: createTemplateBody,
        response: { 202: one, ...errorResponses('templates.create') },
      },
    },
    async (request, reply) => {
      parse(createTemplateBody, request.body);
      const orgId = request.principal!.orgId;
      const call = {
        method: 'POST',
        path: hostPaths.createTemplate,
        json: { org_id: orgId, body: request.body } satisfies z.input<typeof createOnHost>,
      } as const;
      // Built where a `standard` sandbox fits, as a new sandbox is placed; a full host is passed.
      for (const host of await fleet.placement(buildSize)) {
        try {
          const acted = await hosts.json(host.hostId, call, templateActedOn);
          return reply.status(202).send({ data: templateData(await read(acted.template_id)) });
        } catch (error) {
          if (error instanceof HostNotReached) continue;
          if (error instanceof ApiError && error.code === 'no_capacity') continue;
          throw error;
        }
      }
      throw noCapacity(buildSize);
    },
  );

  app.get(
    '/templates',
    {
      onRequest: readers,
      schema: {
        tags,
        summary: 'Templates, newest first',
        response: { 200: data(z.array(templateObject)), ...errorResponses('templates.list') },
      },
    },
    async (request) => ({ data: (await store.list(request.principal!.orgId)).map(templateData) }),
  );

  app.get(
    '/templates/:id',
    {
      onRequest: readers,
      schema: {
        tags,
        summary: 'One template, by id or name',
        params: idParams,
        response: { 200: one, ...errorResponses('template.one') },
      },
    },
    async (request) => {
      const { template } = await resolve(request.principal!.orgId, request.params.id);
      return { data: templateData(requireExisting(template)) };
    },
  );

  app.delete(
    '/templates/:id',
    {
      onRequest: readers,
      schema: {
        tags,
        summary: 'Delete a template nothing stands on, and its files',
        params: idParams,
        response: { 200: one, ...errorResponses('template.one') },
      },
    },
    async (request) => {
      const { template } = await resolve(request.principal!.orgId, request.params.id);
      if (template.status === 'deleted') return { data: templateData(template) };
      const call = { method: 'POST', path: hostPath(hostPaths.deleteTemplate, template.id) } as const;
      const acted = await hosts.json(template.host, call, templateActedOn);
      return { data: templateData(await read(acted.template_id)) };
    },
  );
};
