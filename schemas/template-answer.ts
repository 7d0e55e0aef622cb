import { z } from 'zod';
import { type Template, templateStatuses } from '../domain/templates/template.ts';

// The template object (issue 48) as the API answers it, and the one function that writes it from
// a template's state: the template routes answer it (api/templates/), and so does a sandbox's
// snapshot route (api/sandboxes/).

export const templateSourceObject = z
  .discriminatedUnion('kind', [
    z.object({
      kind: z.literal('recipe'),
      packages: z.array(z.string()).describe('Debian packages, installed with apt'),
      run: z.array(z.string()).describe('commands run in turn as root after the packages'),
    }),
    z.object({
      kind: z.literal('snapshot'),
      sandbox: z.string().describe('the sandbox whose files it took'),
    }),
  ])
  .describe('what it was made from');

export const templateObject = z.object({
  id: z.string().describe('`tpl_` and 24 hex digits'),
  name: z.string(),
  status: z
    .enum(templateStatuses)
    .describe('`building`, then `ready` (sandboxes can be made from it) or `failed` (see `failure`)'),
  source: templateSourceObject,
  parent: z.string().nullable().describe('the template it stands on (a snapshot of a sandbox made from one)'),
  host: z.string().describe('the sandbox host that keeps its files: sandboxes made from it live there'),
  failure: z.string().nullable().describe('why its build failed: the end of its build log'),
  created_at: z.string(),
  updated_at: z.string(),
});

export function templateData(template: Template): z.output<typeof templateObject> {
  const { source } = template;
  return {
    id: template.id,
    name: template.name,
    status: template.status,
    source:
      source.kind === 'recipe'
        ? { kind: 'recipe', packages: [...source.recipe.packages], run: [...source.recipe.run] }
        : { kind: 'snapshot', sandbox: source.sandbox },
    parent: template.parent,
    host: template.host,
    failure: template.failure,
    created_at: template.createdAt.toISOString(),
    updated_at: template.updatedAt.toISOString(),
  };
}
