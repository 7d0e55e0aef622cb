import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

// Templates (issue 48): what a sandbox starts from instead of the bare base. A template is one
// read-only layer of files over the base filesystem (overlayfs stacks it under each sandbox's own
// writable layer), with the layers of the template it came from below it, top first. Made from a
// recipe (template-build.ts: Debian packages and commands run in a throwaway sandbox, cached by
// the recipe's digest, the build log kept) or from a sandbox's files (runtime.ts `snapshot`).
// Kept on the host that made it, under `<state folder>/.templates/<id>/`: `template.json`,
// `layer/`, `build.log`. A sandbox from a template costs what one from the base costs: one more
// lower directory in its overlay.

export const templateStatuses = ['building', 'ready', 'failed'] as const;
export type TemplateStatus = (typeof templateStatuses)[number];

export const templateRecipe = z.object({
  /** Debian packages installed with apt, from the mirror the host's apt uses. */
  packages: z.array(z.string()),
  /** Shell commands run in turn as root, like a Containerfile's RUN lines. */
  run: z.array(z.string()),
});
export type TemplateRecipe = z.infer<typeof templateRecipe>;

export const templateRecord = z.object({
  id: z.string(),
  createdAt: z.string(),
  status: z.enum(templateStatuses),
  /** The base filesystem its layers lie on (a later base does not change it). */
  base: z.string(),
  source: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('recipe'), recipe: templateRecipe, digest: z.string() }),
    z.object({ kind: z.literal('snapshot'), sandbox: z.string() }),
  ]),
  /** Its layer and those below it, top first; each a folder overlayfs takes as a lower layer. */
  layers: z.array(z.string()),
  /** Why the build failed: the end of its log. */
  failure: z.string().nullable(),
});
export type TemplateRecord = z.infer<typeof templateRecord>;

export interface TemplateLayout {
  dir: string;
  record: string;
  layer: string;
  log: string;
}

/** A name a folder can have, and nothing the sandboxes' own folders could be (those start alphanumeric). */
export const templatesFolder = '.templates';

export function templateLayout(stateDir: string, id: string): TemplateLayout {
  const dir = join(stateDir, templatesFolder, id);
  return { dir, record: join(dir, 'template.json'), layer: join(dir, 'layer'), log: join(dir, 'build.log') };
}

export function readTemplate(stateDir: string, id: string): TemplateRecord | undefined {
  const { record } = templateLayout(stateDir, id);
  if (!existsSync(record)) return undefined;
  return templateRecord.parse(JSON.parse(readFileSync(record, 'utf8')));
}

/** Written whole and renamed into place, as sandbox records are. */
export function writeTemplate(stateDir: string, template: TemplateRecord): TemplateRecord {
  const { dir, record } = templateLayout(stateDir, template.id);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temporary = `${record}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(template, null, 2));
  renameSync(temporary, record);
  return template;
}

export function listTemplates(stateDir: string): TemplateRecord[] {
  const dir = join(stateDir, templatesFolder);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((id) => {
    const template = readTemplate(stateDir, id);
    return template === undefined ? [] : [template];
  });
}

/** The last lines of a build's log: what a failed template shows. */
export function logTail(path: string, lines = 20): string {
  return existsSync(path) ? readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n') : '';
}

export function removeTemplate(stateDir: string, id: string): void {
  rmSync(templateLayout(stateDir, id).dir, { recursive: true, force: true });
}
