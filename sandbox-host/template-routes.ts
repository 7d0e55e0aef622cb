import type { FastifyInstance } from 'fastify';
import { requireExisting } from '../domain/templates/decide.ts';
import { createTemplateBody, snapshotBody } from '../domain/templates/requests.ts';
import { createOnHost, hostPaths, type TemplateActedOn } from '../schemas/sandbox-hosts.ts';
import { fromCaller, type HostContext, heldSandbox } from './context.ts';

// The host's template routes (issue 48; schemas/sandbox-hosts.ts): what the API's template routes
// and its snapshot route forward once they have authorized the caller. Each acts through the
// template shell (templates.ts) and answers which template it left, read back by the API.

type IdParams = { Params: { id: string } };

const acted = (templateId: string): TemplateActedOn => ({ template_id: templateId });

export function templateRoutes(app: FastifyInstance, ctx: HostContext): void {
  const { templates } = ctx;

  app.post(hostPaths.createTemplate, async (request, reply) => {
    const { org_id, body } = fromCaller(createOnHost, request.body);
    const template = await templates.fromRecipe(org_id, fromCaller(createTemplateBody, body ?? {}));
    return reply.status(202).send(acted(template.id));
  });

  app.post<IdParams>(hostPaths.snapshot, async (request) => {
    const { name } = fromCaller(snapshotBody, request.body ?? {});
    const sandbox = await heldSandbox(ctx, request.params.id);
    return acted((await templates.snapshot(sandbox, name)).id);
  });

  app.post<IdParams>(hostPaths.deleteTemplate, async (request) => {
    const loaded = await ctx.templateStore.byId(request.params.id);
    if (loaded?.template.status !== 'deleted') requireExisting(loaded?.template);
    const template = loaded!.template;
    templates.mustKeep(template);
    return acted((await templates.delete(template)).id);
  });
}
